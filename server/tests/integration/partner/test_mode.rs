//! Test mode (API.md §12): each magic IBAN gives its outcome through the real payout worker,
//! partner webhooks and the simulator running in-process (embedded mode), whatever faults the
//! simulator is set to; the balance ends right (credited exactly once where the money came
//! back); the duplicate is found and reversed by "Run reconciliation now", which is idempotent
//! per key and, outside test mode, for support staff only; and test mode is on exactly when the
//! partner is the simulator; and the console says test mode, lists the IBANs on New payout, and
//! its "Run reconciliation now" (a double click: one run) is offered to support staff only
//! outside test mode, and refused by the server to anyone else.

use crate::common;

use std::time::Duration;

use chrono::{Days, Utc};
use serde_json::{json, Value};

use common::browser::{hidden, page, signed_in};
use common::{
    configure_partner, eventually, json, partner_reversal_calls, partner_transfers_of,
    spawn_app_and_partner, TestApp,
};
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner_sim::scenarios::{Scenario, MAGIC_IBANS};
use kaadxpay_partner_sim::test_mode::TestMode;
use server::idempotency::{lock_key, Idempotency, IdempotencyKey, Scope};
use server::reconcile::on_request::{Requester, RunNowError};
use server::reconcile::Reconciler;

const FUNDS: i64 = 10_000;
const AMOUNT: i64 = 1_000;

pub(super) fn iban(scenario: Scenario) -> &'static str {
    MAGIC_IBANS
        .iter()
        .find(|magic| magic.scenario == scenario)
        .unwrap()
        .iban
}

/// An app in embedded mode (its partner simulator in-process), funded, with quick workers and
/// a short partner timeout (the slow scenario's first answer never comes).
async fn funded_app() -> (TestApp, String) {
    let (app, partner_url) = embedded_app().await;
    app.fund(FUNDS).await;
    (app, partner_url)
}

/// [`funded_app`] before it is funded, and the URL of its partner simulator.
pub(super) async fn embedded_app() -> (TestApp, String) {
    spawn_app_and_partner(
        0,
        &[
            "--partner-timeout",
            "1s",
            "--payout-interval",
            "100ms",
            "--payout-retry-base",
            "200ms",
        ],
    )
    .await
}

/// Makes a payout of [`AMOUNT`] EUR to `scenario`'s IBAN; returns its id.
async fn pay_out(app: &TestApp, scenario: Scenario) -> String {
    let body = json!({"amount": AMOUNT, "currency": "EUR",
        "destination": {"account_holder": "Grace Hopper", "iban": iban(scenario)}});
    let answer = app
        .post(
            "/v1/payouts",
            Some(&format!("{scenario:?}")),
            &body.to_string(),
        )
        .await;
    assert_eq!(answer.status(), 201);
    json(answer).await["id"].as_str().unwrap().to_owned()
}

async fn payout(app: &TestApp, id: &str) -> Value {
    json(app.get(&format!("/v1/payouts/{id}")).await).await
}

async fn wait_for(app: &TestApp, id: &str, status: &str) -> Value {
    eventually(
        Duration::from_secs(15),
        &format!("payout {status}"),
        || async { payout(app, id).await["status"] == status },
    )
    .await;
    payout(app, id).await
}

async fn balance(app: &TestApp) -> i64 {
    let balance = json(app.get("/v1/balance").await).await;
    balance["available"]
        .as_array()
        .unwrap()
        .iter()
        .find(|entry| entry["currency"] == "EUR")
        .map_or(0, |entry| entry["amount"].as_i64().unwrap())
}

/// Sets the simulator's global faults: a scenario must not see them.
async fn every_fault_on(partner_url: &str) {
    let faults = json!({"mode": "immature", "error_rate": 1.0, "timeout_rate": 1.0,
        "unprocessable_reads": true, "refuse_repeats": true, "refuse_reversals": true});
    configure_partner(partner_url, faults).await;
}

/// The types of the events about the object `id`, in order.
pub(super) async fn payout_events(app: &TestApp, id: &str) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT event_type FROM events WHERE payload->'data'->'object'->>'id' = $1 ORDER BY created_at, id",
    )
    .bind(id)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_paid_iban_is_paid_whatever_the_simulator_is_set_to() {
    let (app, partner_url) = funded_app().await;
    every_fault_on(&partner_url).await;
    let id = pay_out(&app, Scenario::Paid).await;
    let paid = wait_for(&app, &id, "paid").await;
    let made = partner_transfers_of(&partner_url, &id).await;
    assert_eq!(made.len(), 1);
    assert_eq!(paid["partner_transfer_id"], made[0]["id"]);
    assert_eq!(balance(&app).await, FUNDS - AMOUNT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_refused_iban_fails_the_payout_and_credits_it_back_once() {
    let (app, partner_url) = funded_app().await;
    let id = pay_out(&app, Scenario::Refused).await;
    let failed = wait_for(&app, &id, "failed").await;
    assert_eq!(failed["failure_code"], "account_closed");
    assert!(partner_transfers_of(&partner_url, &id).await.is_empty());
    assert_eq!(balance(&app).await, FUNDS);
    assert_eq!(
        payout_events(&app, &id).await,
        ["payout.created", "payout.failed"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_returned_iban_is_paid_then_reversed_and_credited_back_once() {
    let (app, partner_url) = funded_app().await;
    let id = pay_out(&app, Scenario::Returned).await;
    wait_for(&app, &id, "paid").await;
    assert_eq!(balance(&app).await, FUNDS - AMOUNT);
    wait_for(&app, &id, "reversed").await;
    assert_eq!(balance(&app).await, FUNDS);
    let made = partner_transfers_of(&partner_url, &id).await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0]["status"], "reversed");
    assert_eq!(
        payout_events(&app, &id).await,
        [
            "payout.created",
            "payout.in_transit",
            "payout.paid",
            "payout.reversed"
        ]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_slow_iban_times_out_then_the_retry_gets_the_same_transfer() {
    let (app, partner_url) = funded_app().await;
    let id = pay_out(&app, Scenario::Slow).await;
    let paid = wait_for(&app, &id, "paid").await;
    let made = partner_transfers_of(&partner_url, &id).await;
    assert_eq!(
        made.len(),
        1,
        "one transfer, however often it was asked for"
    );
    assert_eq!(paid["partner_transfer_id"], made[0]["id"]);
    let (attempts, last_error): (i32, Option<String>) =
        sqlx::query_as("SELECT attempts, last_error FROM payouts WHERE id = $1")
            .bind(&id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert!(attempts >= 2, "{attempts}");
    assert!(
        last_error
            .as_deref()
            .unwrap_or_default()
            .starts_with("timeout"),
        "{last_error:?}"
    );
    assert_eq!(balance(&app).await, FUNDS - AMOUNT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_held_iban_stays_in_transit_until_released() {
    let (app, partner_url) = funded_app().await;
    let id = pay_out(&app, Scenario::Held).await;
    let in_transit = wait_for(&app, &id, "in_transit").await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    assert_eq!(payout(&app, &id).await["status"], "in_transit");
    let transfer_id = in_transit["partner_transfer_id"].as_str().unwrap();
    assert_eq!(
        partner_transfers_of(&partner_url, &id).await[0]["status"],
        "accepted"
    );

    let release = || async {
        let answer = reqwest::Client::new()
            .post(format!(
                "{partner_url}/_sim/transfers/{transfer_id}/release"
            ))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        answer.json::<Value>().await.unwrap()["status"].clone()
    };
    assert_eq!(release().await, "paid");
    wait_for(&app, &id, "paid").await;
    assert_eq!(release().await, "paid", "a second release changes nothing");
    assert_eq!(balance(&app).await, FUNDS - AMOUNT);
}

fn key(text: &str) -> IdempotencyKey {
    IdempotencyKey::parse(text.as_bytes()).unwrap()
}

/// An idempotency engine on `app`'s database, as the server makes one.
fn engine_of(app: &TestApp) -> Idempotency {
    let day = Duration::from_secs(86_400);
    Idempotency::new(
        app.pool.clone(),
        app.pool.clone(),
        day,
        Duration::from_secs(30),
    )
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_duplicated_iban_is_found_and_reversed_by_a_run_started_now() {
    let (app, partner_url) = funded_app().await;
    let id = pay_out(&app, Scenario::Duplicated).await;
    let paid = wait_for(&app, &id, "paid").await;
    let made = partner_transfers_of(&partner_url, &id).await;
    assert_eq!(made.len(), 2, "the partner booked it twice");
    let duplicate = made
        .iter()
        .find(|transfer| transfer["id"] != paid["partner_transfer_id"])
        .unwrap()["id"]
        .clone();
    eventually(Duration::from_secs(5), "both transfers paid", || async {
        partner_transfers_of(&partner_url, &id)
            .await
            .iter()
            .all(|transfer| transfer["status"] == "paid")
    })
    .await;

    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let engine = engine_of(&app);
    let test_mode = TestMode::at(&partner_url);
    let today = Utc::now().date_naive();
    let by = common::test_author();
    let merchant = Requester::Merchant(&app.merchant.id, &by);
    // A double click: two requests with one key make one run.
    let click = key("run-now-1");
    let (first, second) = tokio::join!(
        reconciler.run_now(&engine, merchant, &test_mode, today, &click),
        reconciler.run_now(&engine, merchant, &test_mode, today, &click),
    );
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(first.id, second.id);
    assert_eq!(first.status, "completed");
    let items = first.items.unwrap();
    let item = items
        .iter()
        .find(|item| item.kind == "duplicate")
        .expect("the duplicate is found");
    assert_eq!(item.transfer_id.as_deref(), duplicate.as_str());
    assert_eq!(item.action.as_deref(), Some("reversed"));
    let runs: i64 = sqlx::query_scalar("SELECT count(*) FROM reconciliation_runs")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(runs, 1);

    // The key for another day is refused; a new click runs again and reverses nothing more.
    let yesterday = today - Days::new(1);
    assert!(matches!(
        reconciler
            .run_now(&engine, merchant, &test_mode, yesterday, &click)
            .await,
        Err(RunNowError::KeyReused)
    ));
    let again = reconciler
        .run_now(&engine, merchant, &test_mode, today, &key("run-now-2"))
        .await
        .unwrap();
    assert_ne!(again.id, first.id);
    assert_eq!(partner_reversal_calls(&partner_url).await, 1);

    let made = partner_transfers_of(&partner_url, &id).await;
    let status_of =
        |id: &Value| made.iter().find(|transfer| &transfer["id"] == id).unwrap()["status"].clone();
    assert_eq!(status_of(&duplicate), "reversed");
    assert_eq!(status_of(&paid["partner_transfer_id"]), "paid");
    let payout = payout(&app, &id).await;
    assert_eq!(
        (
            payout["status"].clone(),
            payout["duplicates_reversed"].clone()
        ),
        (json!("paid"), json!(1))
    );
    // The money left once; the duplicate's reversal is the partner's money, not the merchant's.
    assert_eq!(balance(&app).await, FUNDS - AMOUNT);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn test_mode_is_on_exactly_when_the_partner_is_the_simulator() {
    let (app, partner_url) = spawn_app_and_partner(0, &[]).await;
    assert!(TestMode::embedded().is_on().await);
    assert!(TestMode::at(&partner_url).is_on().await);
    assert!(
        !TestMode::at(&app.base_url).is_on().await,
        "not a simulator"
    );
    let closed = format!("http://127.0.0.1:{}", common::free_port());
    assert!(!TestMode::at(&closed).is_on().await, "no answer");

    // Outside test mode only support staff may run reconciliation now.
    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let engine = engine_of(&app);
    let real_bank = TestMode::at(&app.base_url);
    let today = Utc::now().date_naive();
    assert!(matches!(
        reconciler
            .run_now(
                &engine,
                Requester::Merchant(&app.merchant.id, &common::test_author()),
                &real_bank,
                today,
                &key("merchant")
            )
            .await,
        Err(RunNowError::NotAllowed)
    ));
    let run = reconciler
        .run_now(
            &engine,
            Requester::Support,
            &real_bank,
            today,
            &key("support"),
        )
        .await
        .unwrap();
    assert_eq!((run.date, run.applied), (today, true));
}

/// A key is the merchant's own: another merchant's member with the same key (keys are chosen by
/// clients) gets a run of its own, and the same key for another day is refused to neither.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn two_merchants_with_one_key_get_runs_of_their_own() {
    let (app, partner_url) = funded_app().await;
    let other = common::create_merchant(&app.pool, "Other").await;
    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let engine = engine_of(&app);
    let test_mode = TestMode::at(&partner_url);
    let (today, by, shared) = (
        Utc::now().date_naive(),
        common::test_author(),
        key("shared"),
    );
    let ours = reconciler
        .run_now(
            &engine,
            Requester::Merchant(&app.merchant.id, &by),
            &test_mode,
            today,
            &shared,
        )
        .await
        .unwrap();
    let yesterday = today - Days::new(1);
    let theirs = reconciler
        .run_now(
            &engine,
            Requester::Merchant(&other.id, &by),
            &test_mode,
            yesterday,
            &shared,
        )
        .await
        .unwrap();
    assert_ne!(ours.id, theirs.id);
    assert_eq!(theirs.date, yesterday);
    let support = reconciler
        .run_now(&engine, Requester::Support, &test_mode, today, &shared)
        .await
        .unwrap();
    assert_ne!(support.id, ours.id);
}

/// Support staff act for no merchant and share one scope: one of them repeating another's key
/// gets the run it made. Their keys' outcomes are counted for no merchant's chart, so the
/// counts still flush (a merchant's row for them would reference no merchant).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn support_staff_share_their_keys_and_count_for_no_merchant() {
    let (app, partner_url) = funded_app().await;
    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let engine = engine_of(&app);
    let (test_mode, today, click) = (
        TestMode::at(&partner_url),
        Utc::now().date_naive(),
        key("staff-click"),
    );
    let first = reconciler
        .run_now(&engine, Requester::Support, &test_mode, today, &click)
        .await
        .unwrap();
    let second = reconciler
        .run_now(&engine, Requester::Support, &test_mode, today, &click)
        .await
        .unwrap();
    assert_eq!(first.id, second.id);
    engine.outcomes().flush(&app.pool).await.unwrap();
    let counted: i64 = sqlx::query_scalar("SELECT count(*) FROM idempotency_outcomes")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    assert_eq!(counted, 0, "no merchant's chart counts staff's keys");
}

/// A run whose process died while it ran (here: its connection to the database ended, as it
/// does when the process dies) recorded nothing for its key, and its lock went with the
/// connection: asking again with the key runs again.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_run_whose_process_died_leaves_its_key_free() {
    let (app, partner_url) = funded_app().await;
    // A partner that takes the connection and never answers: the run waits on it.
    let silent = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let stuck = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(
            &format!("http://{}", silent.local_addr().unwrap()),
            Duration::from_secs(60),
        ),
    };
    let engine = engine_of(&app);
    let (today, dies) = (Utc::now().date_naive(), key("dies"));
    let running = {
        let (engine, dies) = (engine.clone(), dies.clone());
        let test_mode = TestMode::at(&partner_url);
        tokio::spawn(async move {
            stuck
                .run_now(&engine, Requester::Support, &test_mode, today, &dies)
                .await
        })
    };
    let lock = lock_key(Scope::Staff, dies.as_str()) as u64;
    let holder = || async {
        sqlx::query_scalar::<_, i32>(
            "SELECT pid FROM pg_locks WHERE locktype = 'advisory' AND granted \
               AND objsubid = 1 AND classid::int8 = $1 AND objid::int8 = $2",
        )
        .bind((lock >> 32) as i64)
        .bind((lock & 0xFFFF_FFFF) as i64)
        .fetch_optional(&app.pool)
        .await
        .unwrap()
    };
    eventually(Duration::from_secs(5), "the run holds its key", || async {
        holder().await.is_some()
    })
    .await;
    sqlx::query("SELECT pg_terminate_backend($1)")
        .bind(holder().await.unwrap())
        .execute(&app.pool)
        .await
        .unwrap();
    running.abort();

    let reconciler = Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(&partner_url, Duration::from_secs(5)),
    };
    let asked_again = tokio::time::timeout(
        Duration::from_secs(20),
        reconciler.run_now(
            &engine,
            Requester::Support,
            &TestMode::at(&partner_url),
            today,
            &dies,
        ),
    )
    .await
    .expect("the key is not held")
    .unwrap();
    assert_eq!((asked_again.date, asked_again.applied), (today, true));
}

/// Submits the run-now form of the `/reconciliation` page `html` for `date`; where it leads.
async fn run_now_in_console(
    app: &TestApp,
    browser: &(reqwest::Client, String),
    html: &str,
    date: &str,
) -> String {
    let (client, cookie) = browser;
    let answer = client
        .post(format!("{}/reconciliation/run", app.base_url))
        .header("cookie", cookie)
        .form(&[
            ("csrf", hidden(html, "csrf").as_str()),
            ("idempotency_key", hidden(html, "idempotency_key").as_str()),
            ("date", date),
        ])
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 303);
    answer.headers()["location"].to_str().unwrap().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_console_says_test_mode_and_its_run_now_reverses_the_duplicate() {
    let (app, partner_url) = funded_app().await;
    let member = signed_in(&app, false).await;
    let new_payout = page(&app, &member, "/payouts/new").await;
    assert!(new_payout.contains("Test mode."), "{new_payout}");
    for magic in MAGIC_IBANS {
        assert!(new_payout.contains(magic.iban), "{}", magic.iban);
    }

    let id = pay_out(&app, Scenario::Duplicated).await;
    wait_for(&app, &id, "paid").await;
    eventually(Duration::from_secs(5), "both transfers paid", || async {
        let made = partner_transfers_of(&partner_url, &id).await;
        made.len() == 2 && made.iter().all(|transfer| transfer["status"] == "paid")
    })
    .await;
    // A double click on "Run reconciliation now": one run, one reversal.
    let runs_page = page(&app, &member, "/reconciliation").await;
    let today = Utc::now().date_naive().to_string();
    let (first, second) = tokio::join!(
        run_now_in_console(&app, &member, &runs_page, &today),
        run_now_in_console(&app, &member, &runs_page, &today),
    );
    assert_eq!(first, second);
    assert!(first.starts_with("/reconciliation/rec_"), "{first}");
    let run_page = page(&app, &member, &first).await;
    assert!(run_page.contains("reversed"), "{run_page}");
    assert_eq!(partner_reversal_calls(&partner_url).await, 1);
    assert_eq!(payout(&app, &id).await["duplicates_reversed"], 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn outside_test_mode_the_console_offers_run_now_to_support_staff_only() {
    // A partner that is not the simulator (nothing answers there).
    let (app, _) = spawn_app_and_partner(0, &["--partner-url", "http://127.0.0.1:9"]).await;
    let member = signed_in(&app, false).await;
    assert!(!page(&app, &member, "/payouts/new")
        .await
        .contains("Test mode."));
    let runs_page = page(&app, &member, "/reconciliation").await;
    assert!(!runs_page.contains("Run reconciliation now"));
    // The form of a page that offered it, sent by a member anyway: refused by the server.
    let support = signed_in(&app, true).await;
    let support_page = page(&app, &support, "/reconciliation").await;
    assert!(support_page.contains("Run reconciliation now"));
    let forged = support_page.replace(
        &hidden(&support_page, "csrf"),
        &hidden(&page(&app, &member, "/payouts/new").await, "csrf"),
    );
    let today = Utc::now().date_naive().to_string();
    assert_eq!(
        run_now_in_console(&app, &member, &forged, &today).await,
        "/reconciliation?error=not%5Fallowed"
    );
    assert_eq!(app.count("reconciliation_runs").await, 0);
}

/// Support staff's run-now keys are staff's, not a merchant's: support's search across
/// merchants does not list them (their runs are on `/reconciliation`), and every hit it lists,
/// the merchant's own keys among them, opens its timeline.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn supports_search_leaves_out_staffs_run_now_keys_and_opens_every_hit() {
    let (app, _) = funded_app().await;
    let support = signed_in(&app, true).await;
    let runs_page = page(&app, &support, "/reconciliation").await;
    let today = Utc::now().date_naive().to_string();
    let run = run_now_in_console(&app, &support, &runs_page, &today).await;
    assert!(run.starts_with("/reconciliation/rec_"), "{run}");
    let key = hidden(&runs_page, "idempotency_key");

    let found = page(&app, &support, &format!("/support?q={key}")).await;
    assert!(!found.contains("/support/timeline"), "{found}");
    let everything = page(&app, &support, &format!("/support?q={}", app.merchant.id)).await;
    let links: Vec<String> = everything
        .split("href=\"")
        .filter_map(|rest| rest.split('"').next())
        .filter(|href| href.starts_with("/support/timeline"))
        .map(|href| href.replace("&amp;", "&"))
        .collect();
    assert!(
        !links.is_empty(),
        "the merchant's keys are found: {everything}"
    );
    for link in links {
        let timeline = common::browser::get(&app, &support, &link).await;
        assert_eq!(timeline.status(), 200, "{link}");
    }
}
