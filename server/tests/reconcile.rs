//! Reconciliation reverses each duplicate at the partner exactly once, however many runs and
//! replicas run at once (API.md §7): against a `kaadxpay partner-sim` whose ledger holds
//! duplicates and which counts the reversal calls it gets, three concurrent
//! `kaadxpay reconcile --apply` processes and two `serve` replicas running the daily job make
//! one call per duplicate; a refused reversal is recorded and retried by the next run; and a
//! retry made after midnight is found.

mod common;

use std::io::Write;
use std::process::Command;
use std::time::Duration;

use chrono::{DateTime, Days, NaiveDate, Utc};
use serde_json::{json, Value};

use common::{count, database_with_merchant, eventually, ServerProcess};
use server::partner::client::PartnerClient;
use server::reconcile::Reconciler;

const IBAN: &str = "DE89370400440532013000";

/// One payout of ours and the transfers the partner made for it (the first is its own).
struct Sent {
    payout_id: &'static str,
    created_at: DateTime<Utc>,
    transfers: Vec<DateTime<Utc>>,
}

fn at(date: NaiveDate, time: &str) -> DateTime<Utc> {
    format!("{date}T{time}Z").parse().unwrap()
}

fn yesterday() -> NaiveDate {
    Utc::now().date_naive() - Days::new(1)
}

/// Writes our payouts (paid, with their own transfer recorded) and the partner's ledger.
async fn world(pool: &sqlx::PgPool, merchant_id: &str, sent: &[Sent]) -> String {
    let store = common::scratch_dir().join("partner.jsonl");
    let mut ledger = std::fs::File::create(&store).unwrap();
    for payout in sent {
        let key = format!("kxp-{}-key", payout.payout_id);
        sqlx::query(
            "INSERT INTO payouts (id, merchant_id, amount, currency, status, destination, \
               idempotency_key, partner_key, partner_transfer_id, created_at) \
             VALUES ($1, $2, 500, 'EUR', 'paid', $3, 'key', $4, $5, $6)",
        )
        .bind(payout.payout_id)
        .bind(merchant_id)
        .bind(json!({"account_holder": "Ada Lovelace", "iban": IBAN}))
        .bind(&key)
        .bind(format!("tr_{}_0", payout.payout_id))
        .bind(payout.created_at)
        .execute(pool)
        .await
        .unwrap();
        for (n, created_at) in payout.transfers.iter().enumerate() {
            let transfer = json!({"id": format!("tr_{}_{n}", payout.payout_id), "status": "paid",
                "amount": 500, "currency": "EUR", "reference": payout.payout_id,
                "destination": {"account_holder": "Ada Lovelace", "iban": IBAN},
                "idempotency_key": key, "created_at": created_at});
            writeln!(ledger, "{transfer}").unwrap();
        }
    }
    store.to_str().unwrap().to_owned()
}

async fn partner_with(store: &str) -> ServerProcess {
    ServerProcess::partner_sim(&["--store", store]).await
}

async fn reversal_calls(partner: &ServerProcess) -> u64 {
    let stats: Value = reqwest::get(format!("{}/_sim/stats", partner.base_url))
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    stats["reversal_calls"].as_u64().unwrap()
}

async fn reversed_at_partner(partner: &ServerProcess) -> usize {
    partner
        .transfers()
        .await
        .iter()
        .filter(|transfer| transfer["status"] == "reversed")
        .count()
}

async fn setup() -> (String, sqlx::PgPool, String) {
    let (db_url, pool, merchant) = database_with_merchant("Reconciled").await;
    (db_url, pool, merchant.id)
}

fn reconciler(pool: &sqlx::PgPool, partner: &ServerProcess) -> Reconciler {
    Reconciler {
        pool: pool.clone(),
        partner: PartnerClient::new(&partner.base_url, Duration::from_secs(5)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_runs_and_replicas_reverse_each_duplicate_exactly_once() {
    let (db_url, pool, merchant_id) = setup().await;
    let day = yesterday();
    let sent: Vec<Sent> = ["po_a", "po_b", "po_c", "po_d"]
        .into_iter()
        .enumerate()
        .map(|(n, payout_id)| Sent {
            payout_id,
            created_at: at(day, "10:00:00"),
            // 1 + n transfers: the own one and n duplicates.
            transfers: (0..=n).map(|_| at(day, "10:00:01")).collect(),
        })
        .collect();
    let duplicates = 1 + 2 + 3;
    let store = world(&pool, &merchant_id, &sent).await;
    let partner = partner_with(&store).await;

    let replica_env = [
        ("KAADXPAY_PARTNER_URL", partner.base_url.as_str()),
        ("KAADXPAY_RECONCILE_INTERVAL", "300ms"),
    ];
    let replicas = [
        ServerProcess::start(&db_url, &replica_env).await,
        ServerProcess::start(&db_url, &replica_env).await,
    ];
    let runs: Vec<_> = (0..3)
        .map(|_| {
            Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
                .args(["reconcile", "--date", &day.to_string(), "--apply"])
                .env("DATABASE_URL", &db_url)
                .env("KAADXPAY_PARTNER_URL", &partner.base_url)
                .env("RUST_LOG", "warn")
                .stdout(std::process::Stdio::null())
                .spawn()
                .unwrap()
        })
        .collect();
    for mut run in runs {
        assert!(run.wait().unwrap().success(), "every run finishes");
    }
    eventually(
        Duration::from_secs(20),
        "a replica ran the daily job",
        || async { count(&pool, "scheduled_runs WHERE finished_at IS NOT NULL").await == 1 },
    )
    .await;
    // Give the other replica a few more checks to try its luck.
    tokio::time::sleep(Duration::from_secs(1)).await;
    drop(replicas);

    assert_eq!(reversed_at_partner(&partner).await, duplicates);
    assert_eq!(
        reversal_calls(&partner).await,
        duplicates as u64,
        "one reversal call per duplicate"
    );
    assert_eq!(
        count(&pool, "reconciliation_runs WHERE status = 'completed'").await,
        4,
        "three runs from the command line and one daily run, all finished"
    );
    assert_eq!(count(&pool, "scheduled_runs").await, 1);
    let counted: i64 = sqlx::query_scalar("SELECT sum(duplicates_reversed) FROM payouts")
        .fetch_one(&pool)
        .await
        .unwrap();
    assert_eq!(counted, duplicates as i64, "each payout counts its own");
    assert_eq!(count(&pool, "payouts WHERE status = 'paid'").await, 4);
}

#[tokio::test]
async fn a_refused_reversal_is_recorded_and_retried_by_the_next_run() {
    let (_, pool, merchant_id) = setup().await;
    let day = yesterday();
    let sent = [Sent {
        payout_id: "po_refused",
        created_at: at(day, "09:00:00"),
        transfers: vec![
            at(day, "09:00:01"),
            at(day, "09:05:00"),
            at(day, "09:10:00"),
        ],
    }];
    let store = world(&pool, &merchant_id, &sent).await;
    let partner = partner_with(&store).await;
    reqwest::Client::new()
        .put(format!("{}/_sim/config", partner.base_url))
        .json(&json!({"refuse_reversals": true}))
        .send()
        .await
        .unwrap();

    let first = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(first.status, "partial");
    assert_eq!(first.counts["duplicate"], 2);
    let refused: Vec<(String, Option<String>)> = sqlx::query_as(
        "SELECT action, detail FROM reconciliation_items WHERE run_id = $1 AND kind = 'duplicate'",
    )
    .bind(&first.id)
    .fetch_all(&pool)
    .await
    .unwrap();
    assert_eq!(refused.len(), 2, "the run kept its items");
    for (action, detail) in &refused {
        assert_eq!(action, "refused");
        assert_eq!(
            detail.as_deref(),
            Some("reversal_refused"),
            "the partner's code"
        );
    }

    reqwest::Client::new()
        .put(format!("{}/_sim/config", partner.base_url))
        .json(&json!({"refuse_reversals": false}))
        .send()
        .await
        .unwrap();
    let second = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(second.status, "completed");
    assert_eq!(reversed_at_partner(&partner).await, 2);
    let third = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(third.status, "completed");
    assert_eq!(
        reversal_calls(&partner).await,
        4,
        "two refused, two made, none after"
    );
}

/// A duplicate the partner cannot reverse yet (it is still in flight: `409 not_reversible`) is left to
/// the next run like a refusal, and its item says so with a short code: the run's JSON (what the
/// API and the console show) carries no internal error text.
#[tokio::test]
async fn a_reversal_without_a_useful_answer_is_retried_and_shown_without_internal_detail() {
    let (_, pool, merchant_id) = setup().await;
    let day = yesterday();
    let sent = [Sent {
        payout_id: "po_unsettled",
        created_at: at(day, "11:00:00"),
        transfers: vec![at(day, "11:00:01"), at(day, "11:02:00")],
    }];
    let store = world(&pool, &merchant_id, &sent).await;
    // The duplicate is still being settled, and stays so while the test runs.
    let ledger: Vec<String> = std::fs::read_to_string(&store)
        .unwrap()
        .lines()
        .map(|line| {
            let mut transfer: Value = serde_json::from_str(line).unwrap();
            if transfer["id"] == "tr_po_unsettled_1" {
                transfer["status"] = json!("accepted");
            }
            transfer.to_string()
        })
        .collect();
    std::fs::write(&store, ledger.join("\n") + "\n").unwrap();
    let partner = ServerProcess::partner_sim(&["--store", &store, "--settle-after", "1h"]).await;

    let run = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(run.status, "partial");
    let stored = server::reconcile::run_with_items(&pool, &run.id, Some(&merchant_id))
        .await
        .unwrap()
        .unwrap();
    let shown = serde_json::to_value(&stored).unwrap();
    let duplicate = shown["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["kind"] == "duplicate")
        .unwrap_or_else(|| panic!("{shown}"));
    assert_eq!(duplicate["action"], "failed", "{shown}");
    assert_eq!(duplicate["detail"], "in_flight", "{shown}");
    assert_eq!(
        count(&pool, "partner_reversals WHERE state = 'refused'").await,
        1
    );

    let again = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(again.status, "partial");
    assert_eq!(reversal_calls(&partner).await, 2, "each run asks again");
}

#[tokio::test]
async fn a_retry_after_midnight_is_found_and_reversed_once() {
    let (_, pool, merchant_id) = setup().await;
    let day = yesterday() - Days::new(1);
    let next = day + Days::new(1);
    let sent = [Sent {
        payout_id: "po_midnight",
        created_at: at(day, "23:59:30"),
        transfers: vec![at(day, "23:59:40"), at(next, "00:00:20")],
    }];
    let store = world(&pool, &merchant_id, &sent).await;
    let partner = partner_with(&store).await;

    let run = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(run.counts.get("duplicate"), Some(&1), "{:?}", run.counts);
    assert_eq!(reversed_at_partner(&partner).await, 1);
    let next_day = reconciler(&pool, &partner).run(next, true).await.unwrap();
    assert_eq!(next_day.status, "completed");
    assert_eq!(reversal_calls(&partner).await, 1, "reversed once, ever");
}
