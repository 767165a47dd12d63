//! Money that may have left is never given back on a guess (API.md §4): against a scripted
//! partner (a stand-in for the bank, outside the product), a `409` on create (the same key still
//! in flight) and a `401` or `404` while polling an in-transit payout keep it where it is and
//! retry, counted by cause; only the partner's `422` to a payout's first create fails it and
//! credits it back (a `422` after an earlier attempt, or on a poll, is proven against the
//! simulator in `api/payouts.rs`). A poll
//! that finds the transfer returned reverses the payout and credits it back. A worker whose
//! lease ran out (its job taken over) can neither record nor release it.

use crate::common;

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::task::JoinHandle;

use common::{eventually, spawn_app_with, TestApp};
use kaadxpay_partner::client::PartnerClient;
use server::payments::executor::PayoutWorker;

/// What the scripted partner answers: the listed statuses first, then success. The n-th create
/// makes transfer `tr_call_{n}` (a partner that ignores keys) and a poll answers the latest one,
/// settled as `settled_as` (`paid` unless told).
#[derive(Clone, Default)]
struct Script {
    /// How long each create takes to answer, in call order (then at once).
    create_delays: Arc<Mutex<VecDeque<Duration>>>,
    create_calls: Arc<AtomicUsize>,
    settled_as: Option<&'static str>,
    creates: Arc<Mutex<VecDeque<u16>>>,
    polls: Arc<Mutex<VecDeque<u16>>>,
    transfer: Arc<Mutex<Option<Value>>>,
    answered_polls: Arc<Mutex<Vec<u16>>>,
}

fn refusal(status: u16, code: &str) -> Response {
    (
        StatusCode::from_u16(status).unwrap(),
        Json(json!({"error": {"code": code, "message": "scripted"}})),
    )
        .into_response()
}

async fn create(
    State(script): State<Script>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Response {
    let call = script.create_calls.fetch_add(1, Ordering::SeqCst) + 1;
    let delay = script.create_delays.lock().unwrap().pop_front();
    tokio::time::sleep(delay.unwrap_or_default()).await;
    if let Some(status) = script.creates.lock().unwrap().pop_front() {
        return refusal(status, "scripted_refusal");
    }
    let transfer = json!({
        "id": format!("tr_call_{call}"), "status": "accepted", "amount": body["amount"],
        "currency": body["currency"], "reference": body["reference"],
        "destination": body["destination"],
        "idempotency_key": headers["x-idempotency-key"].to_str().unwrap(),
        "created_at": chrono::Utc::now(),
    });
    *script.transfer.lock().unwrap() = Some(transfer.clone());
    (StatusCode::CREATED, Json(transfer)).into_response()
}

async fn poll(State(script): State<Script>, Path(_id): Path<String>) -> Response {
    let scripted = script.polls.lock().unwrap().pop_front();
    script
        .answered_polls
        .lock()
        .unwrap()
        .push(scripted.unwrap_or(200));
    match scripted {
        Some(status) => refusal(status, "scripted_refusal"),
        None => {
            let mut transfer = script.transfer.lock().unwrap().clone().unwrap();
            transfer["status"] = json!(script.settled_as.unwrap_or("paid"));
            Json(transfer).into_response()
        }
    }
}

async fn scripted_partner(creates: &[u16], polls: &[u16]) -> (String, Script) {
    serve_script(Script::default(), creates, polls).await
}

async fn serve_script(script: Script, creates: &[u16], polls: &[u16]) -> (String, Script) {
    script.creates.lock().unwrap().extend(creates);
    script.polls.lock().unwrap().extend(polls);
    let router = Router::new()
        .route("/v1/transfers", post(create))
        .route("/v1/transfers/{id}", get(poll))
        .with_state(script.clone());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, router).await });
    (url, script)
}

async fn app_with(partner_url: &str) -> TestApp {
    spawn_app_with(&[
        "--partner-url",
        partner_url,
        "--partner-timeout",
        "500ms",
        "--payout-interval",
        "50ms",
        "--payout-retry-base",
        "50ms",
        "--payout-poll-interval",
        "100ms",
    ])
    .await
}

async fn payout_status(app: &TestApp, id: &str) -> String {
    let payout: Value = common::json(app.get(&format!("/v1/payouts/{id}")).await).await;
    payout["status"].as_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_401_or_404_while_polling_never_gives_sent_money_back() {
    let (partner_url, script) = scripted_partner(&[409, 409], &[401, 401, 404, 404]).await;
    let app = app_with(&partner_url).await;
    let id = app.fund_and_pay_out().await;

    eventually(Duration::from_secs(20), "four refused polls", || async {
        script.answered_polls.lock().unwrap().len() >= 4
    })
    .await;
    let status = payout_status(&app, &id).await;
    assert!(
        ["in_transit", "paid"].contains(&status.as_str()),
        "a refused poll leaves the payout where it was, never failed: {status}"
    );
    assert_eq!(
        app.count("events WHERE event_type = 'payout.failed'").await,
        0
    );
    assert_eq!(
        app.available_eur().await,
        400,
        "the money was not given back"
    );

    eventually(Duration::from_secs(20), "the payout is paid", || async {
        payout_status(&app, &id).await == "paid"
    })
    .await;
    assert_eq!(app.available_eur().await, 400);
    let metrics = app.metrics().await;
    for cause in ["in_flight", "client_error"] {
        assert!(
            metrics.contains(&format!(
                "kaadxpay_partner_retries_total{{cause=\"{cause}\"}}"
            )),
            "retries counted by cause {cause}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_partners_422_fails_a_payout_and_credits_it_back() {
    let (partner_url, _script) = scripted_partner(&[422], &[]).await;
    let app = app_with(&partner_url).await;
    let id = app.fund_and_pay_out().await;
    eventually(Duration::from_secs(20), "the payout failed", || async {
        payout_status(&app, &id).await == "failed"
    })
    .await;
    assert_eq!(app.available_eur().await, 1000, "credited back once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_poll_that_finds_the_transfer_returned_reverses_the_payout_and_credits_it_once() {
    let returned = Script {
        settled_as: Some("reversed"),
        ..Script::default()
    };
    let (partner_url, _script) = serve_script(returned, &[], &[]).await;
    let app = app_with(&partner_url).await;
    let id = app.fund_and_pay_out().await;
    eventually(
        Duration::from_secs(20),
        "the payout is reversed",
        || async { payout_status(&app, &id).await == "reversed" },
    )
    .await;
    assert_eq!(app.available_eur().await, 1000, "credited back once");
    assert_eq!(
        app.count("events WHERE event_type = 'payout.reversed'")
            .await,
        1
    );
    assert_eq!(
        app.count("events WHERE event_type = 'payout.paid'").await,
        0
    );
}

/// An app whose own payout worker stays idle, so that only the test's workers send payouts.
async fn app_without_worker() -> TestApp {
    spawn_app_with(&[
        "--partner-url",
        "http://127.0.0.1:9",
        "--payout-interval",
        "1h",
    ])
    .await
}

/// A payout worker of the test's own against `partner_url`, claiming jobs for `lease`.
fn worker(
    app: &TestApp,
    partner_url: &str,
    lease: Duration,
    partner_timeout: Duration,
) -> PayoutWorker {
    PayoutWorker {
        pool: app.pool.clone(),
        partner: PartnerClient::new(partner_url, partner_timeout),
        lease,
        retry_base: Duration::from_millis(50),
        poll_interval: Duration::from_secs(1),
    }
}

/// One round each of two workers, in the background, each answering how many jobs it claimed:
/// the first claims the job under a 200 ms lease; 500 ms later, that lease run out, the second
/// takes the job over under a minute's. Both wait `partner_timeout` for the partner.
async fn a_second_worker_takes_over(
    app: &TestApp,
    partner_url: &str,
    partner_timeout: Duration,
) -> (JoinHandle<u64>, JoinHandle<u64>) {
    let in_background =
        |worker: PayoutWorker| tokio::spawn(async move { worker.run_once().await.unwrap() });
    let first = in_background(worker(
        app,
        partner_url,
        Duration::from_millis(200),
        partner_timeout,
    ));
    tokio::time::sleep(Duration::from_millis(500)).await;
    let second = in_background(worker(
        app,
        partner_url,
        Duration::from_secs(60),
        partner_timeout,
    ));
    (first, second)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_whose_lease_ran_out_cannot_record_what_the_partner_answered_it() {
    // The first create answers after 1 s, the second after 3 s; the first worker's lease (a
    // setting `serve` refuses; the fencing token must hold even so) runs out long before.
    let slow = Script::default();
    slow.create_delays
        .lock()
        .unwrap()
        .extend([Duration::from_secs(1), Duration::from_secs(3)]);
    let (partner_url, script) = serve_script(slow, &[], &[]).await;
    let app = app_without_worker().await;
    let id = app.fund_and_pay_out().await;
    // The first lease runs out: a second worker takes the job over; the first worker's answer
    // (tr_call_1) comes while the second one holds it.
    let (first, second) =
        a_second_worker_takes_over(&app, &partner_url, Duration::from_secs(10)).await;
    assert_eq!((first.await.unwrap(), second.await.unwrap()), (1, 1));
    assert_eq!(script.create_calls.load(Ordering::SeqCst), 2);

    let recorded: (String, Option<String>) =
        sqlx::query_as("SELECT status, partner_transfer_id FROM payouts WHERE id = $1")
            .bind(&id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(
        recorded,
        ("in_transit".to_owned(), Some("tr_call_2".to_owned())),
        "only the worker holding the job records what the partner answered"
    );
    assert_eq!(
        app.count("events WHERE event_type = 'payout.in_transit'")
            .await,
        1
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_worker_whose_lease_ran_out_cannot_release_the_job_another_worker_holds() {
    // A partner slower than the workers' timeout, and a first worker whose lease is shorter than
    // that timeout (a setting `serve` refuses; the fencing token must hold even so).
    let slow = Script::default();
    slow.create_delays
        .lock()
        .unwrap()
        .extend([Duration::from_secs(3); 3]);
    let (partner_url, script) = serve_script(slow, &[], &[]).await;
    let app = app_without_worker().await;
    app.fund_and_pay_out().await;
    let timeout = Duration::from_millis(1500);
    // The first lease runs out: a second worker takes the job (and is still calling at 2 s).
    let (first, second) = a_second_worker_takes_over(&app, &partner_url, timeout).await;
    // At 1.5 s the first worker's call times out and it gives the job back: a stale release.
    tokio::time::sleep(Duration::from_millis(1250)).await;
    let third = worker(&app, &partner_url, Duration::from_secs(60), timeout)
        .run_once()
        .await
        .unwrap();
    assert_eq!(
        third, 0,
        "the first worker's stale release freed the job the second holds"
    );
    assert_eq!(script.create_calls.load(Ordering::SeqCst), 2);
    assert_eq!((first.await.unwrap(), second.await.unwrap()), (1, 1));
}
