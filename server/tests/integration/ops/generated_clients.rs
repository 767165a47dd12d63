//! The OpenAPI document as an integrator uses it: clients generated from a live
//! `/openapi.json` (a Python client by `openapi-python-client`, TypeScript types by
//! `openapi-typescript`) must type an integration script strictly (`mypy --strict`,
//! `tsc --strict`), the Python one must then work against the live server (create, replay,
//! capture, pay out, look up a key, read a typed `422`), and Redocly's recommended rules must
//! find no error and no warning in the document. The scripts are `tests/clients/`; the tools install the way
//! Schemathesis does, the Python ones in a virtual environment under `target/` and the npm ones
//! in `tests/clients/typescript/node_modules`.

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::tools::{npm_packages, python_venv, run};
use common::{create_merchant, fresh_database, scratch_dir, ServerProcess};

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/clients")
}

#[tokio::test(flavor = "multi_thread")]
async fn generated_clients_type_check_and_the_python_one_works_against_a_live_server() {
    let python = tokio::task::spawn_blocking(|| {
        npm_packages(&here().join("typescript"), "openapi-typescript");
        python_venv("clients-venv", &here().join("requirements.txt"))
    })
    .await
    .unwrap();
    let db_url = fresh_database().await;
    let pool = server::platform::db::connect(&db_url, 2, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let merchant = create_merchant(&pool, "Generated clients").await;
    let server = ServerProcess::start(&db_url, &[]).await;
    let document = reqwest::get(format!("{}/openapi.json", server.base_url))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    let work = scratch_dir();
    let document_path = work.join("openapi.json");
    std::fs::write(&document_path, document).unwrap();
    std::fs::copy(here().join("integration.py"), work.join("integration.py")).unwrap();

    let base_url = server.base_url.clone();
    tokio::task::spawn_blocking(move || {
        run(
            Command::new(python.join("openapi-python-client"))
                .args([
                    "generate",
                    "--meta",
                    "none",
                    "--output-path",
                    "kaadxpay_client",
                ])
                .arg("--path")
                .arg(&document_path)
                .arg("--config")
                .arg(here().join("python-client.yaml"))
                .current_dir(&work),
            "openapi-python-client generate",
        );
        run(
            Command::new(python.join("mypy"))
                .args(["--strict", "integration.py", "kaadxpay_client"])
                .current_dir(&work),
            "mypy --strict on the Python client and the integration script",
        );
        run(
            Command::new(python.join("python"))
                .args(["integration.py", &base_url, &merchant.api_key])
                .current_dir(&work),
            "the Python integration script against the live server",
        );
        let typescript = here().join("typescript");
        let npx = |args: &[&str], what: &str| {
            run(
                Command::new("npx")
                    .arg("--no-install")
                    .args(args)
                    .env("REDOCLY_TELEMETRY", "off")
                    .env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true")
                    .current_dir(&typescript),
                what,
            )
        };
        let document = document_path.to_str().unwrap();
        npx(
            &["openapi-typescript", document, "-o", "schema.d.ts"],
            "openapi-typescript",
        );
        npx(
            &["tsc", "-p", "."],
            "tsc --strict on the TypeScript integration",
        );
        // `recommended-strict`: the recommended rules with every warning an error, so that the
        // lint passes with no warning as well as no error.
        npx(
            &[
                "redocly",
                "lint",
                "--extends",
                "recommended-strict",
                "--format",
                "summary",
                document,
            ],
            "redocly lint (recommended rules, no warning)",
        );
        std::fs::remove_dir_all(&work).ok();
    })
    .await
    .unwrap();
    drop(server);
}
