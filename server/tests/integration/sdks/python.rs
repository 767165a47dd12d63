//! `sdk/python`: pytest against real servers (sdk/python/tests: retries across a restart and a
//! real in-flight `409`, a key kept across retries, error classes, pages, webhooks), `mypy
//! --strict` on the package and its integration example, and a file of mistakes each of which
//! `mypy` must report. Installed into `target/sdk-python-venv` from `requirements-dev.txt`.

use std::process::Command;

use super::{database_and_merchant, loosenings, marked_lines, python_bin, sdk_dir};
use crate::common::tools::run;
use crate::common::TEST_SECRETS_KEY;

#[tokio::test(flavor = "multi_thread")]
async fn the_python_sdk_passes_its_suite_and_types_strictly() {
    let python = sdk_dir().join("python");
    let example = python.join("examples/integration.py");
    let loose = loosenings(
        &example,
        &[
            "cast(",
            "import Any",
            ": Any",
            "[Any",
            "Any]",
            "-> Any",
            "type: ignore",
            "getattr(",
        ],
    );
    assert!(loose.is_empty(), "the example loosens its types: {loose:?}");
    let bin = tokio::task::spawn_blocking(python_bin).await.unwrap();
    let (db_url, merchant) = database_and_merchant("Python SDK").await;
    tokio::task::spawn_blocking(move || {
        run(
            Command::new(bin.join("pytest"))
                .args(["-q", "-p", "no:cacheprovider", "tests"])
                .env("PYTHONPATH", python.join("src"))
                .env("KAADXPAY_BIN", env!("CARGO_BIN_EXE_kaadxpay"))
                .env("KAADXPAY_TEST_DATABASE_URL", &db_url)
                .env("KAADXPAY_TEST_API_KEY", &merchant.api_key)
                .env("KAADXPAY_SECRETS_KEY", TEST_SECRETS_KEY)
                .current_dir(&python),
            "pytest on sdk/python against real servers",
        );
        run(
            Command::new(bin.join("mypy"))
                .args([
                    "--strict",
                    "--no-incremental",
                    "src",
                    "examples/integration.py",
                ])
                .env("MYPYPATH", python.join("src"))
                .current_dir(&python),
            "mypy --strict on the SDK and its integration example",
        );
        let mistakes = Command::new(bin.join("mypy"))
            .args(["--strict", "--no-incremental", "examples/mistakes.py"])
            .env("MYPYPATH", python.join("src"))
            .current_dir(&python)
            .output()
            .expect("mypy runs");
        let report = String::from_utf8_lossy(&mistakes.stdout);
        let reported: Vec<usize> = marked_lines(&python.join("examples/mistakes.py"))
            .into_iter()
            .filter(|line| report.contains(&format!("mistakes.py:{line}: error")))
            .collect();
        assert_eq!(
            reported,
            marked_lines(&python.join("examples/mistakes.py")),
            "every marked mistake is a type error:\n{report}"
        );
        // A line may be reported more than once (an attribute missing from several members of
        // a union): the lines reported must be the marked ones.
        let mut erring: Vec<&str> = report
            .lines()
            .filter(|line| line.contains(": error:"))
            .filter_map(|line| line.split(':').nth(1))
            .collect();
        erring.dedup();
        assert_eq!(
            erring.len(),
            reported.len(),
            "only the marked lines are errors:\n{report}"
        );
    })
    .await
    .unwrap();
}
