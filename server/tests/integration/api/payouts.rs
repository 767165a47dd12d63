//! Payouts end to end against a real PostgreSQL and a real `kaadxpay partner-sim` process:
//! faults at a mature partner, duplicates at an immature one caught by reconciliation, a server
//! killed after the partner call, partner webhooks applied once, and the balance under races.

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use futures::future::join_all;
use serde_json::{json, Value};

use common::{
    as_refs, count, error_code, eventually, free_port, json, payout_body, spawn_app, spawn_app_at,
    spawn_app_with, worker_env, ServerProcess, TestApp, IBAN,
};
use kaadxpay_partner::{signature, TEST_WEBHOOK_SECRET};

/// `POST /v1/payouts` of `amount` EUR cents to [`IBAN`] under the Idempotency-Key `key`.
async fn pay_out(app: &TestApp, key: &str, amount: i64) -> reqwest::Response {
    let body = payout_body(amount, IBAN).to_string();
    app.post("/v1/payouts", Some(key), &body).await
}

fn transfers_per_payout(transfers: &[Value]) -> HashMap<String, usize> {
    let mut per_payout = HashMap::new();
    for transfer in transfers {
        *per_payout
            .entry(transfer["reference"].as_str().unwrap().to_owned())
            .or_insert(0) += 1;
    }
    per_payout
}

/// An app on a known port with a partner simulator sending its webhooks there.
async fn app_with_partner(sim_flags: &[&str], app_flags: &[&str]) -> (TestApp, ServerProcess) {
    let port = free_port();
    let webhook_url = format!("http://127.0.0.1:{port}/webhooks/partner");
    let mut flags = vec!["--webhook-url", webhook_url.as_str()];
    flags.extend_from_slice(sim_flags);
    app_and_partner(port, &flags, app_flags).await
}

/// An app and a partner simulator that sends no webhooks: its transfers are paid at once, and
/// only the payout worker's own calls (creates, then polls) can tell the app so.
async fn app_with_silent_partner(sim_flags: &[&str]) -> (TestApp, ServerProcess) {
    app_and_partner(free_port(), sim_flags, &[]).await
}

async fn app_and_partner(
    port: u16,
    sim_flags: &[&str],
    app_flags: &[&str],
) -> (TestApp, ServerProcess) {
    let mut flags = vec![];
    if !sim_flags.contains(&"--settle-after") {
        flags.extend(["--settle-after", "100ms"]);
    }
    flags.extend_from_slice(sim_flags);
    let partner = ServerProcess::partner_sim(&flags).await;
    let mut all_app_flags = vec![
        "--partner-url",
        partner.base_url.as_str(),
        "--partner-timeout",
        "300ms",
        "--payout-interval",
        "50ms",
        "--payout-retry-base",
        "50ms",
        "--payout-poll-interval",
        "300ms",
    ];
    all_app_flags.extend_from_slice(app_flags);
    (spawn_app_at(port, &all_app_flags).await, partner)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_mature_partner_with_faults_gets_exactly_one_transfer_per_payout() {
    let (app, partner) = app_with_partner(
        &[
            "--mode",
            "mature",
            "--timeout-rate",
            "0.3",
            "--error-rate",
            "0.1",
        ],
        // Six hundred requests at once wait for their turn: this test is about transfers, not
        // about shedding load (tests/overload.rs is).
        &["--db-acquire-timeout", "60s", "--max-waiting", "600"],
    )
    .await;
    app.fund(200 * 100).await;
    let answers = join_all((0..200).flat_map(|n| {
        let app = &app;
        (0..3).map(move |_| async move {
            pay_out(app, &format!("payout-{n}"), 100)
                .await
                .status()
                .as_u16()
        })
    }))
    .await;
    assert!(
        answers.iter().all(|status| [201, 409].contains(status)),
        "{answers:?}"
    );
    assert_eq!(app.count("payouts").await, 200);

    eventually(Duration::from_secs(90), "every payout paid", || async {
        app.count("payouts WHERE status = 'paid'").await == 200
    })
    .await;
    let transfers = partner.transfers().await;
    let per_payout = transfers_per_payout(&transfers);
    assert_eq!(per_payout.len(), 200);
    assert!(
        per_payout.values().all(|&transfers| transfers == 1),
        "a payout was transferred twice"
    );
    assert_eq!(
        json(app.get("/v1/balance").await).await["available"][0]["amount"],
        0
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn reconciliation_reverses_exactly_the_duplicates_of_an_immature_partner_once() {
    // Settling after 2 s leaves time for retries after timeouts, each a new transfer here.
    let (app, partner) = app_with_partner(
        &[
            "--mode",
            "immature",
            "--timeout-rate",
            "0.5",
            "--settle-after",
            "2s",
        ],
        &[],
    )
    .await;
    app.fund(20 * 100).await;
    for n in 0..20 {
        assert_eq!(pay_out(&app, &format!("po-{n}"), 100).await.status(), 201);
    }
    eventually(Duration::from_secs(60), "every payout paid", || async {
        app.count("payouts WHERE status = 'paid'").await == 20
    })
    .await;
    eventually(
        Duration::from_secs(10),
        "every transfer settled",
        || async {
            partner
                .transfers()
                .await
                .iter()
                .all(|transfer| transfer["status"] == "paid")
        },
    )
    .await;
    let transfers = partner.transfers().await;
    let extras = transfers.len() - 20;
    assert!(
        extras > 0,
        "an immature partner with timeouts makes duplicates"
    );

    let today = chrono::Utc::now().date_naive().to_string();
    let reconcile = || {
        let output = std::process::Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
            .args(["reconcile", "--date", &today, "--apply"])
            .env("DATABASE_URL", &app.db_url)
            .env("KAADXPAY_PARTNER_URL", &partner.base_url)
            .env("RUST_LOG", "warn")
            .output()
            .unwrap();
        assert!(
            output.status.success(),
            "{}",
            String::from_utf8_lossy(&output.stderr)
        );
        serde_json::from_slice::<Value>(&output.stdout).unwrap()
    };
    let first = reconcile();
    assert_eq!(first["counts"]["matched"], 20);
    assert_eq!(first["counts"]["duplicate"], extras);
    let reversed = |transfers: &[Value]| {
        transfers
            .iter()
            .filter(|t| t["status"] == "reversed")
            .count()
    };
    assert_eq!(reversed(&partner.transfers().await), extras);
    assert_eq!(
        count(&app.pool, "reconciliation_items WHERE action = 'reversed'").await,
        extras as i64
    );

    let second = reconcile();
    assert_eq!(second["counts"]["duplicate"], extras);
    assert_eq!(
        reversed(&partner.transfers().await),
        extras,
        "nothing is reversed twice"
    );
    let run = json(
        app.get(&format!(
            "/v1/reconciliation-runs/{}",
            second["id"].as_str().unwrap()
        ))
        .await,
    )
    .await;
    let items = run["items"].as_array().unwrap();
    assert!(items
        .iter()
        .filter(|item| item["kind"] == "duplicate")
        .all(|item| item["action"] == "already_reversed"));
    let listed = json(app.get("/v1/reconciliation-runs").await).await;
    for run in [&first, &second] {
        assert!(
            listed["data"]
                .as_array()
                .unwrap()
                .iter()
                .any(|listed| listed["id"] == run["id"]),
            "{run} is listed"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_server_killed_after_the_partner_call_pays_each_payout_once() {
    // No webhooks: after the restart the payouts must be taken again once their lease runs
    // out, sent again with the same end-to-end key, and polled to `paid`.
    let port = free_port();
    // The in-process app only queues the payouts; the kaadxpay processes execute them.
    let (partner, app) = common::partner_and_queueing_app().await;
    app.fund(500).await;
    let doomed_env = worker_env(
        &partner.base_url,
        Some("payout.after_partner_call=sleep(60000)"),
    );
    let doomed_env = as_refs(&doomed_env);
    // Queued first, so that the doomed process claims them all in one batch.
    for n in 0..5 {
        assert_eq!(
            pay_out(&app, &format!("crash-{n}"), 100).await.status(),
            201
        );
    }
    let doomed = ServerProcess::start_at(port, &app.db_url, &doomed_env).await;
    eventually(
        Duration::from_secs(20),
        "the partner to have every transfer",
        || async { partner.transfers().await.len() == 5 },
    )
    .await;
    doomed.kill();
    assert_eq!(
        count(
            &app.pool,
            "payouts WHERE partner_transfer_id IS NOT NULL AND status = 'in_transit'"
        )
        .await,
        0
    );

    let healthy_env = worker_env(&partner.base_url, None);
    let healthy_env = as_refs(&healthy_env);
    let _restarted = ServerProcess::start_at(port, &app.db_url, &healthy_env).await;
    eventually(
        Duration::from_secs(30),
        "every payout paid after the restart",
        || async { count(&app.pool, "payouts WHERE status = 'paid'").await == 5 },
    )
    .await;
    let per_payout = transfers_per_payout(&partner.transfers().await);
    assert_eq!(per_payout.len(), 5);
    assert!(
        per_payout.values().all(|&transfers| transfers == 1),
        "no money is paid twice"
    );
}

/// Funds the app's merchant with 1000 and asks for a payout of 400; returns its path.
async fn payout_of_400_out_of_1000(app: &TestApp, key: &str) -> String {
    app.fund(1000).await;
    let payout = json(pay_out(app, key, 400).await).await;
    format!("/v1/payouts/{}", payout["id"].as_str().unwrap())
}

/// A payout the partner accepted but has not settled (it settles after an hour).
async fn payout_in_transit() -> (TestApp, ServerProcess, Value) {
    let (app, partner) = app_with_partner(&["--settle-after", "1h"], &[]).await;
    let path = payout_of_400_out_of_1000(&app, "webhooked").await;
    eventually(Duration::from_secs(10), "the payout in transit", || async {
        json(app.get(&path).await).await["status"] == "in_transit"
    })
    .await;
    let payout = json(app.get(&path).await).await;
    (app, partner, payout)
}

fn paid_event(payout: &Value) -> Vec<u8> {
    serde_json::to_vec(&json!({
        "event_id": "evt_once", "type": "transfer.paid", "created_at": chrono::Utc::now(),
        "data": {"transfer": {
            "id": payout["partner_transfer_id"], "status": "paid", "amount": payout["amount"], "currency": "EUR",
            "reference": payout["id"], "destination": payout["destination"],
            "idempotency_key": format!("kxp-{}-webhooked", payout["id"].as_str().unwrap()), "created_at": chrono::Utc::now(),
        }}
    }))
    .unwrap()
}

async fn deliver(app: &TestApp, body: &[u8], signature: &str) -> reqwest::Response {
    app.client
        .post(format!("{}/webhooks/partner", app.base_url))
        .header(signature::HEADER, signature)
        .body(body.to_vec())
        .send()
        .await
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_same_partner_webhook_five_times_at_once_changes_the_payout_once() {
    let (app, _partner, payout) = payout_in_transit().await;
    let body = paid_event(&payout);
    let header = signature::sign(TEST_WEBHOOK_SECRET, chrono::Utc::now().timestamp(), &body);
    let answers =
        join_all((0..5).map(|_| async { json(deliver(&app, &body, &header).await).await })).await;
    let first_deliveries = answers
        .iter()
        .filter(|answer| answer["duplicate"] == false)
        .count();
    assert_eq!(first_deliveries, 1, "{answers:?}");
    assert_eq!(app.count("partner_events").await, 1);
    assert_eq!(
        app.count("events WHERE event_type = 'payout.paid'").await,
        1,
        "one move, one event"
    );
    let now = json(
        app.get(&format!("/v1/payouts/{}", payout["id"].as_str().unwrap()))
            .await,
    )
    .await;
    assert_eq!(now["status"], "paid");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_forged_or_stale_partner_signature_is_refused_and_changes_nothing() {
    let (app, _partner, payout) = payout_in_transit().await;
    let body = paid_event(&payout);
    let now = chrono::Utc::now().timestamp();
    for header in [
        signature::sign("whsec_forged", now, &body),
        signature::sign(
            TEST_WEBHOOK_SECRET,
            now - signature::TOLERANCE_SECS - 60,
            &body,
        ),
        String::new(),
    ] {
        let response = deliver(&app, &body, &header).await;
        assert_eq!(response.status(), 401, "{header:?}");
        assert_eq!(error_code(&json(response).await), "invalid_signature");
    }
    assert_eq!(app.count("partner_events").await, 0);
    assert_eq!(
        app.count("events WHERE event_type = 'payout.paid'").await,
        0
    );
    let unchanged = json(
        app.get(&format!("/v1/payouts/{}", payout["id"].as_str().unwrap()))
            .await,
    )
    .await;
    assert_eq!(unchanged["status"], "in_transit");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_payouts_never_take_the_balance_below_zero() {
    let app = spawn_app_with(&["--payout-interval", "1h"]).await;
    app.fund(10_000).await;
    let statuses = join_all((0..50).map(|n| {
        let app = &app;
        async move {
            // As a client would: a 409 (in flight) or 503 (shed under load) is asked again
            // with the same key, which executes at most once.
            let key = format!("race-{n}");
            loop {
                let status = pay_out(app, &key, 1_000).await.status().as_u16();
                if status != 409 && status != 503 {
                    return status;
                }
                tokio::time::sleep(std::time::Duration::from_millis(100)).await;
            }
        }
    }))
    .await;
    assert_eq!(
        statuses.iter().filter(|status| **status == 201).count(),
        10,
        "{statuses:?}"
    );
    assert_eq!(
        statuses.iter().filter(|status| **status == 402).count(),
        40,
        "{statuses:?}"
    );
    assert_eq!(app.count("payouts").await, 10);
    assert_eq!(
        json(app.get("/v1/balance").await).await["available"][0]["amount"],
        0
    );

    let refused_key = (0..50).find(|n| statuses[*n] == 402).unwrap();
    let replay = pay_out(&app, &format!("race-{refused_key}"), 1_000).await;
    assert_eq!(
        replay.status(),
        402,
        "a definitive refusal is stored and replayed"
    );
    assert_eq!(replay.headers()["idempotent-replayed"], "true");
    assert_eq!(error_code(&json(replay).await), "insufficient_funds");
}

#[tokio::test]
async fn a_refused_transfer_fails_the_payout_and_frees_its_amount() {
    let (app, _partner) = app_with_partner(&[], &[]).await;
    app.fund(1_000).await;
    let bad_account = json!({"amount": 600, "currency": "EUR",
        "destination": {"account_holder": "Nobody", "iban": "DE89370400440532013001"}});
    let payout = json(
        app.post("/v1/payouts", Some("refused"), &bad_account.to_string())
            .await,
    )
    .await;
    fails_as_invalid_account_once(&app, payout["id"].as_str().unwrap()).await;
}

/// Waits for payout `id` to fail with the partner's `invalid_account`, then checks that its
/// amount came back (out of a balance of 1000) and that it failed once.
async fn fails_as_invalid_account_once(app: &TestApp, id: &str) {
    let path = format!("/v1/payouts/{id}");
    eventually(Duration::from_secs(10), "the payout failed", || async {
        json(app.get(&path).await).await["status"] == "failed"
    })
    .await;
    assert_eq!(
        json(app.get(&path).await).await["failure_code"],
        "invalid_account"
    );
    assert_eq!(
        json(app.get("/v1/balance").await).await["available"][0]["amount"],
        1_000
    );
    assert_eq!(
        app.count(&format!(
            "events WHERE event_type = 'payout.failed' AND payload->'data'->'object'->>'id' = '{id}'"
        ))
        .await,
        1,
        "failed once"
    );
}

#[tokio::test]
async fn bad_payout_input_gets_its_400_and_changes_nothing() {
    let app = spawn_app().await;
    app.fund(1_000).await;
    let before = (
        app.count("payouts").await,
        app.count("idempotency_keys").await,
    );
    for (body, param) in [
        (json!({"amount": 100, "currency": "EUR"}), "destination"),
        (
            json!({"amount": 100, "currency": "EUR", "destination": {"iban": IBAN}}),
            "destination[account_holder]",
        ),
        (
            json!({"amount": 100, "currency": "EUR", "destination": {"account_holder": "A", "iban": "not-an-iban"}}),
            "destination[iban]",
        ),
        (
            json!({"amount": 100, "currency": "EUR", "destination": {"account_holder": "A", "iban": IBAN, "bic": "X"}}),
            "destination[bic]",
        ),
        (
            json!({"amount": -1, "currency": "EUR", "destination": {"account_holder": "A", "iban": IBAN}}),
            "amount",
        ),
    ] {
        let response = app
            .post(
                "/v1/payouts",
                Some(&format!("bad-{param}")),
                &body.to_string(),
            )
            .await;
        assert_eq!(response.status(), 400, "{param}");
        assert_eq!(json(response).await["error"]["param"], param);
    }
    assert_eq!(
        (
            app.count("payouts").await,
            app.count("idempotency_keys").await
        ),
        before
    );
}

async fn payout_row(app: &TestApp, id: &str) -> (String, Option<String>) {
    sqlx::query_as("SELECT status, last_error FROM payouts WHERE id = $1")
        .bind(id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn available(app: &TestApp) -> Value {
    json(app.get("/v1/balance").await).await["available"][0]["amount"].clone()
}

/// A partner whose status checks answer `422` (its read API's validation error) while the
/// transfer is live: the payout stays `in_transit` with its amount still out, and is paid once
/// reads work again (API.md §4: a status check never fails a payout by its answer code).
#[tokio::test]
async fn a_422_on_a_status_check_never_fails_the_payout() {
    let (app, partner) = app_with_silent_partner(&["--unprocessable-reads"]).await;
    let path = payout_of_400_out_of_1000(&app, "polled").await;
    let id = path.trim_start_matches("/v1/payouts/").to_owned();
    eventually(Duration::from_secs(10), "a poll answered 422", || async {
        match payout_row(&app, &id).await {
            (status, _) if status == "pending" => false,
            (status, error) if status == "in_transit" => error.is_some_and(|e| e.contains("422")),
            _ => true,
        }
    })
    .await;
    let (status, _) = payout_row(&app, &id).await;
    assert_eq!(status, "in_transit", "a 422 on a read is no answer");
    assert_eq!(available(&app).await, 600, "nothing credited back");

    partner
        .configure(json!({"unprocessable_reads": false}))
        .await;
    let path = format!("/v1/payouts/{id}");
    eventually(Duration::from_secs(10), "the payout paid", || async {
        json(app.get(&path).await).await["status"] == "paid"
    })
    .await;
    assert_eq!(available(&app).await, 600);
}

/// The first create reached the partner but its answer was lost; the retry is refused with
/// `422 duplicate_transfer` by a partner that ignores keys. The payout is not failed and nothing
/// is credited: the partner's listing shows its transfer, which becomes its own, and it is paid.
#[tokio::test]
async fn a_422_duplicate_after_a_lost_answer_finds_the_own_transfer_and_pays_once() {
    let (app, partner) =
        app_with_silent_partner(&["--refuse-repeats", "--timeout-rate", "1.0"]).await;
    let path = payout_of_400_out_of_1000(&app, "repeated").await;
    eventually(Duration::from_secs(15), "the payout settled", || async {
        let status = json(app.get(&path).await).await["status"].clone();
        status == "paid" || status == "failed"
    })
    .await;
    let settled = json(app.get(&path).await).await;
    assert_eq!(settled["status"], "paid", "{settled}");
    let transfers = partner.transfers().await;
    assert_eq!(transfers.len(), 1, "one transfer was ever made");
    assert_eq!(settled["partner_transfer_id"], transfers[0]["id"]);
    assert_eq!(
        available(&app).await,
        600,
        "the money left once and was never given back"
    );
}

/// After an earlier attempt that made nothing (a `503`), a `422` with no transfer of the
/// payout's key in the partner's listing fails the payout and credits it back, once.
#[tokio::test]
async fn a_422_after_an_earlier_attempt_fails_only_when_the_partner_lists_no_transfer() {
    let (app, partner) = app_with_partner(&["--error-rate", "1.0"], &[]).await;
    app.fund(1_000).await;
    let bad_account = json!({"amount": 600, "currency": "EUR",
        "destination": {"account_holder": "Nobody", "iban": "DE89370400440532013001"}});
    let payout = json(
        app.post(
            "/v1/payouts",
            Some("refused-later"),
            &bad_account.to_string(),
        )
        .await,
    )
    .await;
    let id = payout["id"].as_str().unwrap().to_owned();
    eventually(
        Duration::from_secs(10),
        "a first attempt answered 503",
        || async { payout_row(&app, &id).await.1.is_some() },
    )
    .await;
    partner.configure(json!({"error_rate": 0.0})).await;
    fails_as_invalid_account_once(&app, &id).await;
    assert!(partner.transfers().await.is_empty());
}

/// A refusal on a new key is the key's answer at once: the effect's transaction is rolled back
/// (and its lock on the key released) before the refusal is recorded, so no request with a new
/// key is ever told its key is in progress.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_refused_payout_on_a_new_key_is_answered_402_never_409() {
    let app = spawn_app_with(&["--payout-interval", "1h"]).await;
    let statuses = join_all((0..60).map(|n| {
        let app = &app;
        async move {
            pay_out(app, &format!("broke-{n}"), 1_000)
                .await
                .status()
                .as_u16()
        }
    }))
    .await;
    assert!(statuses.iter().all(|status| *status == 402), "{statuses:?}");
    assert_eq!(
        app.count("idempotency_keys WHERE response_status = 402")
            .await,
        60
    );
}
