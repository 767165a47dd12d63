//! A payout moves only on news about its own transfer (API.md §4, §6): a partner that makes one
//! transfer per key however many calls race, an event about a duplicate that moves nothing even
//! before the payout knows its own transfer, and the own transfer's reversal crediting the money
//! back exactly once while a duplicate's reversal leaves the payout paid. Whose transfer an
//! event is about is told by the partner's own listing, over every day since the payout was
//! made, and an event the listing cannot place yet is deferred (`503`), not lost.

use crate::common;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Query, State};
use axum::routing::get;
use axum::{Json, Router};
use chrono::{DateTime, Utc};
use futures::future::join_all;
use serde_json::{json, Value};

use common::{spawn_app_with, ServerProcess, TestApp, IBAN};
use kaadxpay_partner::{signature, TEST_WEBHOOK_SECRET};

/// An app whose own payout worker stays idle, so that only the test's events move payouts.
async fn app_with_partner(partner_url: &str) -> TestApp {
    spawn_app_with(&["--partner-url", partner_url, "--payout-interval", "1h"]).await
}

/// A pending payout of 600 out of a balance of 1000; returns its id and end-to-end key.
async fn pending_payout(app: &TestApp) -> (String, String) {
    let id = app.fund_and_pay_out().await;
    let key: String = sqlx::query_scalar("SELECT partner_key FROM payouts WHERE id = $1")
        .bind(&id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    (id, key)
}

fn transfer(id: &str, payout_id: &str, key: &str, status: &str) -> Value {
    transfer_made_at(id, payout_id, key, status, Utc::now())
}

fn transfer_made_at(
    id: &str,
    payout_id: &str,
    key: &str,
    status: &str,
    created_at: DateTime<Utc>,
) -> Value {
    json!({"id": id, "status": status, "amount": 600, "currency": "EUR", "reference": payout_id,
        "destination": {"account_holder": "Ada Lovelace", "iban": IBAN},
        "idempotency_key": key, "created_at": created_at})
}

/// A partner (a stand-in for the bank, outside the product) that only lists the transfers the
/// test gives it, by the day they were made: `GET /v1/transfers?date=`.
async fn listing_partner() -> (String, Arc<Mutex<Vec<Value>>>) {
    #[derive(serde::Deserialize)]
    struct OfDay {
        date: chrono::NaiveDate,
    }
    async fn list(
        State(listed): State<Arc<Mutex<Vec<Value>>>>,
        Query(of): Query<OfDay>,
    ) -> Json<Value> {
        let data: Vec<Value> = listed
            .lock()
            .unwrap()
            .iter()
            .filter(|transfer| {
                let made: DateTime<Utc> = transfer["created_at"].as_str().unwrap().parse().unwrap();
                made.date_naive() == of.date
            })
            .cloned()
            .collect();
        Json(json!({"data": data}))
    }
    let listed = Arc::new(Mutex::new(Vec::new()));
    let router = Router::new()
        .route("/v1/transfers", get(list))
        .with_state(listed.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, listed)
}

/// Two transfers made with the payout's key at a partner that ignores keys (the payout's create
/// answer was lost twice): the first, its own, and a duplicate.
async fn own_and_duplicate(partner: &ServerProcess, payout_id: &str, key: &str) -> (Value, Value) {
    let create = || async {
        reqwest::Client::new()
            .post(format!("{}/v1/transfers", partner.base_url))
            .header("x-idempotency-key", key)
            .json(
                &json!({"amount": 600, "currency": "EUR", "reference": payout_id,
                "destination": {"account_holder": "Ada Lovelace", "iban": IBAN}}),
            )
            .send()
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap()
    };
    let own = create().await;
    (own, create().await)
}

/// Delivers a partner webhook signed with the partner's secret; returns the status.
async fn deliver(app: &TestApp, event_id: &str, event_type: &str, transfer: &Value) -> u16 {
    let body = json!({"event_id": event_id, "type": event_type,
        "created_at": chrono::Utc::now(), "data": {"transfer": transfer}})
    .to_string();
    let header = signature::sign(
        TEST_WEBHOOK_SECRET,
        chrono::Utc::now().timestamp(),
        body.as_bytes(),
    );
    app.client
        .post(format!("{}/webhooks/partner", app.base_url))
        .header(signature::HEADER, header)
        .header("content-type", "application/json")
        .body(body)
        .send()
        .await
        .unwrap()
        .status()
        .as_u16()
}

async fn payout(app: &TestApp, id: &str) -> Value {
    common::json(app.get(&format!("/v1/payouts/{id}")).await).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_creates_with_one_key_make_one_transfer_at_a_mature_partner() {
    // The partner's latency parks a round's calls and wakes them together, so they check the
    // key at once; a race shows in a few rounds out of a hundred, so there are a hundred, each
    // with a key of its own.
    const ROUNDS: usize = 100;
    const CALLS: usize = 20;
    let partner = ServerProcess::partner_sim(&["--mode", "mature", "--latency-ms", "20"]).await;
    let client = reqwest::Client::new();
    for round in 0..ROUNDS {
        let key = format!("kxp-po_race-{round}");
        let request = json!({"amount": 100, "currency": "EUR", "reference": "po_race",
            "destination": {"account_holder": "Ada Lovelace", "iban": IBAN}});
        let answers = join_all((0..CALLS).map(|_| async {
            let answer: Value = client
                .post(format!("{}/v1/transfers", partner.base_url))
                .header("x-idempotency-key", &key)
                .json(&request)
                .send()
                .await
                .unwrap()
                .json()
                .await
                .unwrap();
            answer["id"].as_str().unwrap().to_owned()
        }))
        .await;
        assert!(
            answers.iter().all(|id| *id == answers[0]),
            "one answer for key {key}: {answers:?}"
        );
    }
    assert_eq!(
        partner.transfers().await.len(),
        ROUNDS,
        "one transfer per key"
    );
}

#[tokio::test]
async fn an_event_about_a_duplicate_never_moves_the_payout_even_before_it_knows_its_own() {
    let partner = ServerProcess::partner_sim(&["--mode", "immature", "--settle-after", "1h"]).await;
    let app = app_with_partner(&partner.base_url).await;
    let (id, key) = pending_payout(&app).await;
    // The payout's create answer was lost twice: an immature partner made two transfers with
    // its key, and the payout has recorded neither.
    let (own, duplicate) = &own_and_duplicate(&partner, &id, &key).await;

    assert_eq!(
        deliver(&app, "evt_dup_failed", "transfer.failed", duplicate).await,
        200
    );
    let after = payout(&app, &id).await;
    assert_eq!(
        after["status"], "pending",
        "the duplicate's failure moves nothing"
    );
    assert_eq!(after["partner_transfer_id"], Value::Null);
    assert_eq!(app.available_eur().await, 400, "nothing credited");

    let mut paid = own.clone();
    paid["status"] = json!("paid");
    assert_eq!(
        deliver(&app, "evt_own_paid", "transfer.paid", &paid).await,
        200
    );
    let after = payout(&app, &id).await;
    assert_eq!(after["status"], "paid", "the own transfer's news moves it");
    assert_eq!(after["partner_transfer_id"], own["id"]);
}

#[tokio::test]
async fn the_own_transfer_returned_credits_once_and_a_reversed_duplicate_moves_nothing() {
    let app = app_with_partner("http://127.0.0.1:9").await;
    let (id, key) = pending_payout(&app).await;
    sqlx::query("UPDATE payouts SET status = 'paid', partner_transfer_id = 'tr_own' WHERE id = $1")
        .bind(&id)
        .execute(&app.pool)
        .await
        .unwrap();

    let duplicate = transfer("tr_duplicate", &id, &key, "reversed");
    assert_eq!(
        deliver(&app, "evt_dup", "transfer.reversed", &duplicate).await,
        200
    );
    assert_eq!(payout(&app, &id).await["status"], "paid");
    assert_eq!(
        app.available_eur().await,
        400,
        "a duplicate's return is not the merchant's"
    );

    let own = transfer("tr_own", &id, &key, "reversed");
    let statuses =
        join_all((0..5).map(|_| deliver(&app, "evt_own", "transfer.reversed", &own))).await;
    assert!(statuses.iter().all(|status| *status == 200), "{statuses:?}");
    assert_eq!(
        deliver(&app, "evt_own_again", "transfer.reversed", &own).await,
        200
    );

    assert_eq!(payout(&app, &id).await["status"], "reversed");
    assert_eq!(
        app.available_eur().await,
        1000,
        "credited back exactly once"
    );
    assert_eq!(
        app.count("events WHERE event_type = 'payout.reversed'")
            .await,
        1
    );
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(app.available_eur().await, 1000);
}

#[tokio::test]
async fn a_duplicate_made_days_after_the_first_transfer_never_moves_the_payout() {
    let (partner_url, listed) = listing_partner().await;
    let app = app_with_partner(&partner_url).await;
    let (id, key) = pending_payout(&app).await;
    // The payout was made three days ago; its first transfer's answer was lost then, and a
    // partner that ignores keys made another one on today's retry.
    let three_days_ago = Utc::now() - chrono::Days::new(3);
    sqlx::query("UPDATE payouts SET created_at = $2 WHERE id = $1")
        .bind(&id)
        .bind(three_days_ago)
        .execute(&app.pool)
        .await
        .unwrap();
    let first = transfer_made_at("tr_first", &id, &key, "paid", three_days_ago);
    let retry = transfer("tr_retry", &id, &key, "paid");
    listed
        .lock()
        .unwrap()
        .extend([first.clone(), retry.clone()]);

    assert_eq!(
        deliver(&app, "evt_retry_paid", "transfer.paid", &retry).await,
        200
    );
    let after = payout(&app, &id).await;
    assert_eq!(
        after["status"], "pending",
        "the retry's transfer is a duplicate"
    );
    assert_eq!(after["partner_transfer_id"], Value::Null);

    assert_eq!(
        deliver(&app, "evt_first_paid", "transfer.paid", &first).await,
        200
    );
    let after = payout(&app, &id).await;
    assert_eq!(after["status"], "paid");
    assert_eq!(after["partner_transfer_id"], "tr_first");
}

#[tokio::test]
async fn an_event_the_partners_listing_cannot_place_yet_is_deferred_not_lost() {
    let (partner_url, listed) = listing_partner().await;
    let app = app_with_partner(&partner_url).await;
    let (id, key) = pending_payout(&app).await;
    let own = transfer("tr_own", &id, &key, "paid");

    // The partner's listing lags behind its webhook: whose transfer it is cannot be told yet.
    assert_eq!(deliver(&app, "evt_paid", "transfer.paid", &own).await, 503);
    assert_eq!(payout(&app, &id).await["status"], "pending");
    assert_eq!(
        app.count("partner_events").await,
        0,
        "not recorded, so it can come again"
    );

    listed.lock().unwrap().push(own.clone());
    assert_eq!(deliver(&app, "evt_paid", "transfer.paid", &own).await, 200);
    let after = payout(&app, &id).await;
    assert_eq!(
        after["status"], "paid",
        "the event sent again moves the payout"
    );
    assert_eq!(after["partner_transfer_id"], "tr_own");
}

#[tokio::test]
async fn a_repeated_event_answers_200_even_while_the_partner_cannot_be_asked() {
    let partner = ServerProcess::partner_sim(&["--mode", "immature", "--settle-after", "1h"]).await;
    let app = app_with_partner(&partner.base_url).await;
    let (id, key) = pending_payout(&app).await;
    let (_own, duplicate) = own_and_duplicate(&partner, &id, &key).await;
    assert_eq!(
        deliver(&app, "evt_dup_paid", "transfer.paid", &duplicate).await,
        200
    );

    drop(partner);
    assert_eq!(
        deliver(&app, "evt_dup_paid", "transfer.paid", &duplicate).await,
        200,
        "a repeated event changes nothing and needs no answer from the partner"
    );
    assert_eq!(payout(&app, &id).await["status"], "pending");
    assert_eq!(app.count("partner_events").await, 1);
}
