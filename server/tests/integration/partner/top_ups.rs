//! Money in (API.md §13, §6): each transfer the partner received for a merchant is credited
//! once, as a top-up with its ledger journal, statement item and `top_up.received` event,
//! whether it is learnt from the partner's `transfer.received` webhook (the simulator's, or the
//! same again with another event id), from reconciliation's listing, or from both at once; a
//! lost webhook is made good by `kaadxpay reconcile --apply` and never without `--apply`; a
//! reference that is no merchant's credits nobody and is an `unknown_incoming` item only
//! support staff see; a forged webhook changes nothing.

use crate::common;

use std::process::Command;
use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};

use common::{count, create_user, eventually, json, signed_in, spawn_app_and_partner, TestApp};
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner::{signature, TEST_WEBHOOK_SECRET};
use server::reconcile::Reconciler;

async fn app_and_partner() -> (TestApp, String) {
    spawn_app_and_partner(0, &[]).await
}

/// The test merchant's funding reference, as `GET /v1/funding-account` gives it.
async fn funding_reference(app: &TestApp) -> String {
    let account = json(app.get("/v1/funding-account").await).await;
    assert_eq!(account["object"], "funding_account", "{account}");
    account["reference"].as_str().unwrap().to_owned()
}

/// Money arrives at the partner simulator with `reference`: the incoming transfer.
async fn send_money(partner_url: &str, amount: i64, reference: &str) -> Value {
    let answer = reqwest::Client::new()
        .post(format!("{partner_url}/_sim/incoming"))
        .json(&json!({"amount": amount, "currency": "EUR", "reference": reference}))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 201);
    let incoming: Value = answer.json().await.unwrap();
    assert!(
        incoming["id"].as_str().unwrap().starts_with("in_"),
        "{incoming}"
    );
    incoming
}

/// A `transfer.received` about `incoming`, as the partner sends it.
fn received(event_id: &str, incoming: &Value) -> Value {
    json!({"event_id": event_id, "type": "transfer.received", "created_at": Utc::now(),
        "data": incoming})
}

/// Posts `event` to the server's partner webhook, signed with `secret`.
async fn deliver_signed(app: &TestApp, event: &Value, secret: &str) -> reqwest::Response {
    let body = serde_json::to_vec(event).unwrap();
    app.client
        .post(format!("{}/webhooks/partner", app.base_url))
        .header("content-type", "application/json")
        .header(
            signature::HEADER,
            signature::sign(secret, Utc::now().timestamp(), &body),
        )
        .body(body)
        .send()
        .await
        .unwrap()
}

async fn deliver(app: &TestApp, event: &Value) -> reqwest::Response {
    deliver_signed(app, event, TEST_WEBHOOK_SECRET).await
}

/// What crediting wrote: top-ups, `top_up` journals, statement items, `top_up.received` events,
/// and the `available` EUR balance.
async fn credited(app: &TestApp) -> [i64; 5] {
    [
        app.count("top_ups").await,
        app.count("ledger_journals WHERE kind = 'top_up'").await,
        app.count("balance_transactions WHERE type = 'top_up'")
            .await,
        app.count("events WHERE event_type = 'top_up.received'")
            .await,
        sqlx::query_scalar(
            "SELECT coalesce(sum(available), 0)::int8 FROM balances WHERE currency = 'EUR'",
        )
        .fetch_one(&app.pool)
        .await
        .unwrap(),
    ]
}

fn reconciler(app: &TestApp, partner_url: &str) -> Reconciler {
    Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(partner_url, Duration::from_secs(5)),
    }
}

/// `kaadxpay reconcile --date <today>` (with `--apply` when `apply`) against `partner_url`.
fn reconcile_command(app: &TestApp, partner_url: &str, apply: bool) {
    let today = Utc::now().date_naive().to_string();
    let mut args = vec!["reconcile", "--date", &today];
    if apply {
        args.push("--apply");
    }
    let status = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
        .args(args)
        .env("DATABASE_URL", &app.db_url)
        .env("KAADXPAY_PARTNER_URL", partner_url)
        .env("RUST_LOG", "warn")
        .stdout(std::process::Stdio::null())
        .status()
        .unwrap();
    assert!(status.success(), "kaadxpay reconcile finishes");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_top_up_delivered_twice_by_webhook_and_listed_is_credited_once() {
    let (app, partner_url) = app_and_partner().await;
    let reference = funding_reference(&app).await;
    // As a sender's bank passes it on: lower case, with spaces.
    let written = format!(" {} {} ", &reference[..3], &reference[3..]).to_lowercase();
    let incoming = send_money(&partner_url, 2500, &written).await;
    eventually(
        Duration::from_secs(10),
        "the simulator's transfer.received credited the merchant",
        || async { app.count("top_ups").await == 1 },
    )
    .await;

    // The partner delivers the same money again under another event id, then repeats that one.
    let again = received("evt_again", &incoming);
    for _ in 0..2 {
        let answer = deliver(&app, &again).await;
        assert_eq!(answer.status(), 200, "a repeat is acknowledged");
    }
    // And reconciliation lists it.
    let summary = reconciler(&app, &partner_url)
        .run(Utc::now().date_naive(), true)
        .await
        .unwrap();
    assert_eq!(summary.counts.get("unknown_incoming"), None, "{summary:?}");

    assert_eq!(credited(&app).await, [1, 1, 1, 1, 2500]);
    let listed = json(app.get("/v1/top-ups").await).await;
    let top_ups = listed["data"].as_array().unwrap();
    assert_eq!(top_ups.len(), 1, "{listed}");
    let top_up = &top_ups[0];
    assert_eq!(top_up["object"], "top_up");
    assert_eq!(top_up["amount"], 2500);
    assert_eq!(top_up["currency"], "EUR");
    assert_eq!(top_up["partner_incoming_id"], incoming["id"]);
    let id = top_up["id"].as_str().unwrap();
    assert!(id.starts_with("tu_"), "{id}");
    assert_eq!(
        json(app.get(&format!("/v1/top-ups/{id}")).await).await,
        *top_up
    );
    let statement = json(app.get("/v1/balance-transactions?type=top_up").await).await;
    assert_eq!(
        statement["data"][0]["source"],
        json!({"type": "top_up", "id": id})
    );
    assert_eq!(statement["data"][0]["amount"], 2500);
    assert_eq!(statement["data"][0]["balance_after"], 2500);
    let event: Value =
        sqlx::query_scalar("SELECT payload FROM events WHERE event_type = 'top_up.received'")
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(event["data"]["object"], *top_up, "{event}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_lost_webhook_is_credited_by_reconcile_apply_and_never_without_it() {
    let (app, partner_url) = app_and_partner().await;
    common::configure_partner(&partner_url, json!({"drop_incoming_webhooks": true})).await;
    let reference = funding_reference(&app).await;
    send_money(&partner_url, 4000, &reference).await;
    tokio::time::sleep(Duration::from_millis(800)).await;
    assert_eq!(app.count("partner_events").await, 0, "the webhook was lost");

    reconcile_command(&app, &partner_url, false);
    assert_eq!(credited(&app).await, [0, 0, 0, 0, 0], "no --apply: nothing");

    reconcile_command(&app, &partner_url, true);
    assert_eq!(credited(&app).await, [1, 1, 1, 1, 4000]);
    reconcile_command(&app, &partner_url, true);
    assert_eq!(
        credited(&app).await,
        [1, 1, 1, 1, 4000],
        "once, however many runs"
    );
    assert_eq!(
        app.count("top_ups WHERE credited_by = 'reconciliation'")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn an_unknown_reference_credits_nobody_and_only_support_staff_see_it() {
    let (app, partner_url) = app_and_partner().await;
    let incoming = send_money(&partner_url, 900, "INVOICE 2026-17").await;
    eventually(
        Duration::from_secs(10),
        "the simulator's transfer.received arrived",
        || async { app.count("partner_events").await == 1 },
    )
    .await;
    let answer = deliver(&app, &received("evt_unknown", &incoming)).await;
    assert_eq!(answer.status(), 200, "the partner is told it was received");

    let summary = reconciler(&app, &partner_url)
        .run(Utc::now().date_naive(), true)
        .await
        .unwrap();
    assert_eq!(
        summary.counts.get("unknown_incoming"),
        Some(&1),
        "{summary:?}"
    );
    assert_eq!(credited(&app).await, [0, 0, 0, 0, 0], "nobody is credited");
    assert_eq!(count(&app.pool, "ledger_journals").await, 0);

    let in_id = incoming["id"].as_str().unwrap();
    let run = json(
        app.get(&format!("/v1/reconciliation-runs/{}", summary.id))
            .await,
    )
    .await;
    assert_eq!(run["items"], json!([]), "no merchant's item: {run}");

    let merchant_id = app.merchant.id.to_string();
    create_user(
        &app.pool,
        "owner@example.com",
        Some((&merchant_id, app::console::Role::Owner)),
    )
    .await;
    create_user(&app.pool, "support@example.com", None).await;
    let page = |email: &'static str| {
        let app = &app;
        let path = format!("/reconciliation/{}", summary.id);
        async move {
            let cookie = signed_in(app, email).await;
            app.client
                .get(format!("{}{path}", app.base_url))
                .header("cookie", cookie)
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap()
        }
    };
    let support = page("support@example.com").await;
    assert!(support.contains(in_id), "support staff see the money");
    assert!(support.contains("unknown_incoming"));
    let member = page("owner@example.com").await;
    assert!(!member.contains(in_id), "no merchant sees it");
    assert!(!member.contains("unknown_incoming"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 8)]
async fn webhooks_racing_reconciliation_credit_once() {
    let (app, partner_url) = app_and_partner().await;
    common::configure_partner(&partner_url, json!({"drop_incoming_webhooks": true})).await;
    let reference = funding_reference(&app).await;
    let incoming = send_money(&partner_url, 1234, &reference).await;
    let date = Utc::now().date_naive();

    let mut racers = tokio::task::JoinSet::new();
    for n in 0..12 {
        let event = received(&format!("evt_race_{n}"), &incoming);
        let (base_url, client) = (app.base_url.clone(), app.client.clone());
        racers.spawn(async move {
            let body = serde_json::to_vec(&event).unwrap();
            let header = signature::sign(TEST_WEBHOOK_SECRET, Utc::now().timestamp(), &body);
            let answer = client
                .post(format!("{base_url}/webhooks/partner"))
                .header("content-type", "application/json")
                .header(signature::HEADER, header)
                .body(body)
                .send()
                .await
                .unwrap();
            assert_eq!(answer.status(), 200);
        });
    }
    for _ in 0..3 {
        let reconciler = reconciler(&app, &partner_url);
        racers.spawn(async move {
            reconciler.run(date, true).await.unwrap();
        });
    }
    while let Some(raced) = racers.join_next().await {
        raced.unwrap();
    }
    assert_eq!(credited(&app).await, [1, 1, 1, 1, 1234]);
    assert_eq!(
        app.count("partner_events").await,
        12,
        "every event recorded"
    );
}

#[tokio::test]
async fn a_forged_or_stale_transfer_received_is_refused_and_changes_nothing() {
    let (app, partner_url) = app_and_partner().await;
    common::configure_partner(&partner_url, json!({"drop_incoming_webhooks": true})).await;
    let reference = funding_reference(&app).await;
    let incoming = send_money(&partner_url, 700, &reference).await;
    let event = received("evt_forged", &incoming);

    let forged = deliver_signed(&app, &event, "whsec_not_the_partner").await;
    assert_eq!(forged.status(), 401);
    assert_eq!(common::error_code(&json(forged).await), "invalid_signature");
    let body = serde_json::to_vec(&event).unwrap();
    let stale = app
        .client
        .post(format!("{}/webhooks/partner", app.base_url))
        .header(
            signature::HEADER,
            signature::sign(TEST_WEBHOOK_SECRET, Utc::now().timestamp() - 3600, &body),
        )
        .body(body)
        .send()
        .await
        .unwrap();
    assert_eq!(stale.status(), 401);

    assert_eq!(credited(&app).await, [0, 0, 0, 0, 0]);
    assert_eq!(app.count("partner_events").await, 0);
    // The same event, signed by the partner, is credited: the refusal kept nothing.
    assert_eq!(deliver(&app, &event).await.status(), 200);
    assert_eq!(credited(&app).await, [1, 1, 1, 1, 700]);
}

#[tokio::test]
async fn money_the_partner_describes_unusably_is_refused_and_changes_nothing() {
    let (app, _partner_url) = app_and_partner().await;
    let reference = funding_reference(&app).await;
    for (amount, currency) in [(0, "EUR"), (-500, "EUR"), (500, "eur"), (500, "XXX")] {
        let incoming = json!({"id": "in_bad", "amount": amount, "currency": currency,
            "reference": reference, "received_at": Utc::now()});
        let answer = deliver(
            &app,
            &received(&format!("evt_{amount}_{currency}"), &incoming),
        )
        .await;
        assert_eq!(answer.status(), 400, "{amount} {currency}");
    }
    assert_eq!(credited(&app).await, [0, 0, 0, 0, 0]);
    assert_eq!(app.count("partner_events").await, 0);
}

/// The day's listing at the partner simulator at `partner_url`.
async fn listed_incoming(partner_url: &str, date: &str) -> Vec<Value> {
    let list: Value = reqwest::get(format!("{partner_url}/v1/incoming?date={date}"))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    list["data"].as_array().unwrap().clone()
}

#[tokio::test]
async fn the_simulator_keeps_money_in_across_a_restart_and_refuses_what_no_bank_sends() {
    let store = common::scratch_dir().join("partner.jsonl");
    let store = store.to_str().unwrap();
    let partner = common::ServerProcess::partner_sim(&["--store", store]).await;
    for bad in [
        json!({"amount": 0, "currency": "EUR", "reference": "KXP1"}),
        json!({"amount": 100, "currency": "eur", "reference": "KXP1"}),
        json!({"amount": 100, "currency": "EUR", "reference": "  "}),
        json!({"amount": 100, "currency": "EUR"}),
    ] {
        let answer = reqwest::Client::new()
            .post(format!("{}/_sim/incoming", partner.base_url))
            .json(&bad)
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 400, "{bad}");
    }
    let incoming = send_money(&partner.base_url, 5100, "KXP ABC").await;
    assert_eq!(incoming["amount"], 5100);
    assert_eq!(incoming["reference"], "KXP ABC");
    let today = Utc::now().date_naive();
    let listed = listed_incoming(&partner.base_url, &today.to_string()).await;
    assert_eq!(listed, std::slice::from_ref(&incoming));
    let yesterday = today.pred_opt().unwrap().to_string();
    assert!(listed_incoming(&partner.base_url, &yesterday)
        .await
        .is_empty());

    partner.kill();
    let restarted = common::ServerProcess::partner_sim(&["--store", store]).await;
    assert_eq!(
        listed_incoming(&restarted.base_url, &today.to_string()).await,
        [incoming],
        "kept across a restart"
    );
}
