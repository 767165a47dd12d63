//! `sdk/typescript`: the committed `dist/` is what `tsc` builds from `src/`, node's test runner
//! against real servers (test/client.test.mjs: retries across a restart and a real in-flight
//! `409`, a key kept across retries, error classes, pages, webhooks), `tsc --strict
//! --noUncheckedIndexedAccess` on the integration example, a file of mistakes each of which tsc
//! must report, and `npm pack`. Installed by `npm ci` in `sdk/typescript`.

use std::path::Path;
use std::process::Command;

use super::{database_and_merchant, loosenings, marked_lines, sdk_dir, typescript_modules};
use crate::common::tools::run;
use crate::common::{scratch_dir, TEST_SECRETS_KEY};

/// The files of `dir` and their contents, by their path inside it.
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut found: Vec<(String, Vec<u8>)> = std::fs::read_dir(dir)
        .unwrap()
        .map(|entry| entry.unwrap().path())
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&path).unwrap())
        })
        .collect();
    found.sort();
    found
}

#[tokio::test(flavor = "multi_thread")]
async fn the_typescript_sdk_passes_its_suite_and_types_strictly() {
    let typescript = sdk_dir().join("typescript");
    let example = typescript.join("examples/integration.ts");
    let loose = loosenings(&example, &[" as ", "<any>", ": any", "@ts-", "!."]);
    assert!(loose.is_empty(), "the example loosens its types: {loose:?}");
    tokio::task::spawn_blocking(typescript_modules)
        .await
        .unwrap();
    let (db_url, merchant) = database_and_merchant("TypeScript SDK").await;
    tokio::task::spawn_blocking(move || {
        let npx = |args: &[&str], what: &str| {
            run(
                Command::new("npx")
                    .arg("--no-install")
                    .args(args)
                    .current_dir(&typescript),
                what,
            )
        };
        let built = scratch_dir();
        npx(
            &["tsc", "-p", ".", "--outDir", built.to_str().unwrap()],
            "tsc builds the SDK",
        );
        assert!(
            files(&built) == files(&typescript.join("dist")),
            "sdk/typescript/dist is not what `npm run build` makes of src/: run it and commit dist/"
        );
        npx(
            &["tsc", "-p", "examples"],
            "tsc --strict on the integration example",
        );
        let mistakes = Command::new("npx")
            .args([
                "--no-install",
                "tsc",
                "-p",
                "examples/tsconfig.mistakes.json",
            ])
            .current_dir(&typescript)
            .output()
            .expect("tsc runs");
        let report = String::from_utf8_lossy(&mistakes.stdout);
        let marked = marked_lines(&typescript.join("examples/mistakes.ts"));
        let reported: Vec<usize> = marked
            .iter()
            .copied()
            .filter(|line| report.contains(&format!("mistakes.ts({line},")))
            .collect();
        assert_eq!(
            reported, marked,
            "every marked mistake is a type error:\n{report}"
        );
        assert_eq!(
            report.matches("error TS").count(),
            marked.len(),
            "only the marked lines are errors:\n{report}"
        );
        run(
            Command::new("node")
                .args(["--test", "test/client.test.mjs"])
                .env("KAADXPAY_BIN", env!("CARGO_BIN_EXE_kaadxpay"))
                .env("KAADXPAY_TEST_DATABASE_URL", &db_url)
                .env("KAADXPAY_TEST_API_KEY", &merchant.api_key)
                .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
                .current_dir(&typescript),
            "node --test on sdk/typescript against real servers",
        );
        let packed = Command::new("npm")
            .args(["pack", "--dry-run", "--json"])
            .current_dir(&typescript)
            .output()
            .expect("npm pack runs");
        let listing = String::from_utf8_lossy(&packed.stdout);
        assert!(packed.status.success(), "npm pack failed");
        for file in [
            "dist/index.js",
            "dist/index.d.ts",
            "dist/schema.d.ts",
            "package.json",
        ] {
            assert!(
                listing.contains(file),
                "npm pack leaves out {file}:\n{listing}"
            );
        }
        std::fs::remove_dir_all(&built).ok();
    })
    .await
    .unwrap();
}
