//! Schemathesis against a live `kaadxpay serve`: the OpenAPI document at `/openapi.json` must
//! describe the API well enough that a client generator can trust it. Every check runs
//! (`--checks all`) in every phase, the stateful one included, as a funded merchant with a real
//! API key; the goal is no failure and no server error. `schemathesis/schemathesis.toml` says
//! which refusals a schema-valid request may rightly get, and why; `schemathesis/hooks.py` makes
//! every valid `Idempotency-Key` unique, so that a sequence the tool runs again executes again
//! instead of replaying a stored answer. One check is left out:
//! `use_after_free`, which takes every `DELETE` for a removal, while `DELETE
//! /v1/api-keys/{id}` revokes a key that stays readable (API.md §11), and the tool cannot exempt
//! one operation in its stateful phase; `api::api_keys::a_deleted_endpoint_is_gone_and_a_revoked_key_stays_readable`
//! asserts what each `DELETE` leaves instead.
//!
//! Schemathesis is installed the way the Playwright suite installs its tools: a virtual
//! environment under `target/`, made by this test from `schemathesis/requirements.txt` (PyPI).

use crate::common;

use std::path::{Path, PathBuf};
use std::process::Command;

use common::tools::python_venv;
use common::{create_merchant, fresh_database, ServerProcess};
use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::CURRENCIES;
use server::payments::ledger::{self, Movement, Posting, Source};

fn here() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/schemathesis")
}

/// The `st` command of a virtual environment that has the pinned Schemathesis.
fn schemathesis() -> PathBuf {
    python_venv("schemathesis-venv", &here().join("requirements.txt")).join("st")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_openapi_document_passes_every_schemathesis_check() {
    let st = tokio::task::spawn_blocking(schemathesis).await.unwrap();
    let db_url = fresh_database().await;
    let pool = server::platform::db::connect(&db_url, 2, std::time::Duration::from_secs(5))
        .await
        .unwrap();
    let merchant = create_merchant(&pool, "Schemathesis").await;
    // Funded in every currency, so that a schema-valid payout is never short of money.
    let funder = MerchantId::from(merchant.id.as_str());
    let mut conn = pool.acquire().await.unwrap();
    for currency in CURRENCIES {
        // One top-up per currency: a journal of a kind is posted once per cause.
        let top_up = format!("tu_schemathesis_{currency}");
        let posting = Posting {
            merchant_id: &funder,
            currency,
            amount: 1_000_000_000_000_000,
            movement: Movement::TopUp,
            source: Source::top_up(&top_up),
        };
        ledger::post_credit(&mut conn, &posting).await.unwrap();
    }
    drop(conn);
    // Checked here is what the API answers, not how it sheds load (faults::overload is): on a
    // machine busy with the other tests, a request waits for its turn instead of getting `503`.
    let server = ServerProcess::start(
        &db_url,
        &[
            ("KAADXPAY_ADMISSION_WAIT", "5s"),
            ("KAADXPAY_DB_ACQUIRE_TIMEOUT", "10s"),
        ],
    )
    .await;

    let schema = format!("{}/openapi.json", server.base_url);
    let status = tokio::task::spawn_blocking(move || {
        Command::new(st)
            .arg("--config-file")
            .arg(here().join("schemathesis.toml"))
            .args(["--no-color", "run", &schema, "--checks", "all"])
            .args(["--exclude-checks", "use_after_free"])
            .args([
                "--max-examples",
                "25",
                "--seed",
                "20261204",
                "--workers",
                "2",
            ])
            .env("KAADXPAY_API_KEY", &merchant.api_key)
            .env("SCHEMATHESIS_HOOKS", here().join("hooks.py"))
            .status()
            .expect("st runs")
    })
    .await
    .unwrap();
    drop(server);
    assert!(
        status.success(),
        "Schemathesis found failures (above); replay one with `st replay <id>`"
    );
}
