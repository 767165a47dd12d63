//! Reconciliation reverses each duplicate at the partner exactly once, however many runs and
//! replicas run at once (API.md §7): against a `kaadxpay partner-sim` whose ledger holds
//! duplicates and which counts the reversal calls it gets, three concurrent
//! `kaadxpay reconcile --apply` processes and two `serve` replicas running the daily job make
//! one call per duplicate; a refused reversal is recorded, retried by the next run, and retried
//! by the reversal worker long after its day until done; a retry made after midnight is found;
//! a partner whose day lists overlap never gets a payout's own transfer reversed; and a payout
//! contradicting its own transfer is a `status_mismatch` that makes the run `attention`,
//! exported as a metric.

use crate::common;

use std::io::Write;
use std::process::Command;
use std::time::Duration;

use chrono::{DateTime, Days, NaiveDate, Utc};
use serde_json::{json, Value};

use common::{count, database_with_merchant, eventually, ServerProcess, IBAN};
use kaadxpay_partner::client::PartnerClient;
use server::reconcile::reversals::ReversalWorker;
use server::reconcile::Reconciler;

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

/// Rewrites the partner's ledger: the transfers whose `field` is `value` get `status`.
fn set_status_at_partner(store: &str, field: &str, value: &str, status: &str) {
    let ledger: Vec<String> = std::fs::read_to_string(store)
        .unwrap()
        .lines()
        .map(|line| {
            let mut transfer: Value = serde_json::from_str(line).unwrap();
            if transfer[field] == value {
                transfer["status"] = json!(status);
            }
            transfer.to_string()
        })
        .collect();
    std::fs::write(store, ledger.join("\n") + "\n").unwrap();
}

async fn partner_with(store: &str) -> ServerProcess {
    ServerProcess::partner_sim(&["--store", store]).await
}

async fn reversed_at_partner(partner: &ServerProcess) -> usize {
    partner
        .transfers()
        .await
        .iter()
        .filter(|transfer| transfer["status"] == "reversed")
        .count()
}

async fn setup() -> (common::TestDatabase, sqlx::PgPool, String) {
    let (db_url, pool, merchant) = database_with_merchant("Reconciled").await;
    (db_url, pool, merchant.id.into())
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
        partner.reversal_calls().await,
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
    let (_db, pool, merchant_id) = setup().await;
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
    partner.configure(json!({"refuse_reversals": true})).await;

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
            Some("not_reversible"),
            "the partner's code"
        );
    }

    partner.configure(json!({"refuse_reversals": false})).await;
    let second = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(second.status, "completed");
    assert_eq!(reversed_at_partner(&partner).await, 2);
    let third = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(third.status, "completed");
    assert_eq!(
        partner.reversal_calls().await,
        4,
        "two refused, two made, none after"
    );
}

/// A duplicate the partner cannot reverse yet (it is still in flight: `409 not_reversible`) is left to
/// the next run like a refusal, and its item says so with a short code: the run's JSON (what the
/// API and the console show) carries no internal error text.
#[tokio::test]
async fn a_reversal_without_a_useful_answer_is_retried_and_shown_without_internal_detail() {
    let (_db, pool, merchant_id) = setup().await;
    let day = yesterday();
    let sent = [Sent {
        payout_id: "po_unsettled",
        created_at: at(day, "11:00:00"),
        transfers: vec![at(day, "11:00:01"), at(day, "11:02:00")],
    }];
    let store = world(&pool, &merchant_id, &sent).await;
    // The duplicate is still being settled, and stays so while the test runs.
    set_status_at_partner(&store, "id", "tr_po_unsettled_1", "accepted");
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
    assert_eq!(duplicate["action"], "refused", "{shown}");
    assert_eq!(duplicate["detail"], "not_reversible", "{shown}");
    assert_eq!(
        count(&pool, "partner_reversals WHERE state = 'refused'").await,
        1
    );

    let again = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(again.status, "partial");
    assert_eq!(partner.reversal_calls().await, 2, "each run asks again");
}

#[tokio::test]
async fn a_retry_after_midnight_is_found_and_reversed_once() {
    let (_db, pool, merchant_id) = setup().await;
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
    assert_eq!(partner.reversal_calls().await, 1, "reversed once, ever");
}

fn reversal_worker(pool: &sqlx::PgPool, partner: &ServerProcess) -> ReversalWorker {
    ReversalWorker {
        pool: pool.clone(),
        partner: PartnerClient::new(&partner.base_url, Duration::from_secs(5)),
    }
}

/// Makes every unfinished reversal due, as if `days` had passed.
async fn days_pass(pool: &sqlx::PgPool, days: i32) {
    sqlx::query(
        "UPDATE partner_reversals SET next_attempt_at = next_attempt_at - make_interval(days => $1)",
    )
    .bind(days)
    .execute(pool)
    .await
    .unwrap();
}

/// Our payout `failed` while its own transfer is paid at the partner (what a `422` on a poll
/// did), and ours `paid` while the partner says `failed`: each is a `status_mismatch` item,
/// shown, never acted on, and the run is `attention`.
#[tokio::test]
async fn a_payout_contradicting_its_own_transfer_is_a_status_mismatch_and_needs_attention() {
    let (_db, pool, merchant_id) = setup().await;
    let day = yesterday();
    let sent = [
        Sent {
            payout_id: "po_failed_here",
            created_at: at(day, "08:00:00"),
            transfers: vec![at(day, "08:00:01")],
        },
        Sent {
            payout_id: "po_failed_there",
            created_at: at(day, "08:10:00"),
            transfers: vec![at(day, "08:10:01")],
        },
        Sent {
            payout_id: "po_fine",
            created_at: at(day, "08:20:00"),
            transfers: vec![at(day, "08:20:01")],
        },
    ];
    let store = world(&pool, &merchant_id, &sent).await;
    // As the old code left it: a retried create refused, the payout failed with no transfer.
    sqlx::query(
        "UPDATE payouts SET status = 'failed', partner_transfer_id = NULL, \
           failure_code = 'duplicate_transfer' WHERE id = 'po_failed_here'",
    )
    .execute(&pool)
    .await
    .unwrap();
    set_status_at_partner(&store, "reference", "po_failed_there", "failed");
    let partner = partner_with(&store).await;

    let run = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(run.status, "attention", "{:?}", run.counts);
    assert_eq!(
        run.counts.get("status_mismatch"),
        Some(&2),
        "{:?}",
        run.counts
    );
    assert_eq!(run.counts.get("matched"), Some(&1), "{:?}", run.counts);
    let stored = server::reconcile::run_with_items(&pool, &run.id, Some(&merchant_id))
        .await
        .unwrap()
        .unwrap();
    let shown = serde_json::to_value(&stored).unwrap();
    assert_eq!(shown["status"], "attention");
    let mismatched: Vec<&str> = shown["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["kind"] == "status_mismatch")
        .map(|item| item["payout_id"].as_str().unwrap())
        .collect();
    assert_eq!(mismatched, ["po_failed_here", "po_failed_there"], "{shown}");
    assert_eq!(partner.reversal_calls().await, 0, "never acted on");
    assert_eq!(count(&pool, "payouts WHERE status = 'failed'").await, 1);
    assert_eq!(reversed_at_partner(&partner).await, 0);
}

/// A reversal refused on D's run (the partner's `409 not_reversible` all weekend) is not
/// abandoned when D is past: the runs of the following days do not see it, and the reversal
/// worker retries it, however old, until the partner accepts; D's items and status then say so.
#[tokio::test]
async fn a_refused_reversal_is_retried_after_its_day_until_it_is_done() {
    let (_db, pool, merchant_id) = setup().await;
    let day = yesterday() - Days::new(4);
    let sent = [Sent {
        payout_id: "po_weekend",
        created_at: at(day, "16:00:00"),
        transfers: vec![
            at(day, "16:00:01"),
            at(day, "16:01:00"),
            at(day, "16:02:00"),
            at(day, "16:03:00"),
        ],
    }];
    let store = world(&pool, &merchant_id, &sent).await;
    let partner = ServerProcess::partner_sim(&["--store", &store, "--refuse-reversals"]).await;

    let first = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(first.status, "partial");
    assert_eq!(first.counts["duplicate"], 3);
    let worker = reversal_worker(&pool, &partner);
    // Days pass; the partner still refuses; each later day's run knows nothing of D.
    for later in 1..=4 {
        days_pass(&pool, 1).await;
        worker.run_once().await.unwrap();
        let run = reconciler(&pool, &partner)
            .run(day + Days::new(later), true)
            .await
            .unwrap();
        assert_eq!(run.counts.get("duplicate"), None);
    }
    assert_eq!(
        partner.reversal_calls().await,
        3 + 4 * 3,
        "retried every day"
    );
    assert_eq!(reversed_at_partner(&partner).await, 0);

    // The partner accepts again; long after D, the worker reverses them.
    partner.configure(json!({"refuse_reversals": false})).await;
    days_pass(&pool, 1).await;
    worker.run_once().await.unwrap();
    assert_eq!(reversed_at_partner(&partner).await, 3);
    assert_eq!(
        count(&pool, "partner_reversals WHERE state = 'reversed'").await,
        3
    );
    let duplicates_reversed: i32 =
        sqlx::query_scalar("SELECT duplicates_reversed FROM payouts WHERE id = 'po_weekend'")
            .fetch_one(&pool)
            .await
            .unwrap();
    assert_eq!(duplicates_reversed, 3);
    let stored = server::reconcile::run_with_items(&pool, &first.id, None)
        .await
        .unwrap()
        .unwrap();
    let shown = serde_json::to_value(&stored).unwrap();
    assert_eq!(shown["status"], "completed", "{shown}");
    for item in shown["items"].as_array().unwrap() {
        if item["kind"] == "duplicate" {
            assert_eq!(item["action"], "reversed", "{shown}");
        }
    }
    days_pass(&pool, 30).await;
    worker.run_once().await.unwrap();
    assert_eq!(
        partner.reversal_calls().await,
        3 + 4 * 3 + 3,
        "done is done"
    );
}

/// A partner whose day listing also returns the neighbouring days' transfers lists a payout's
/// own transfer under three days: it counts once, is `matched`, and is never reversed; nor is
/// an own transfer that some earlier run wrongly recorded as a duplicate to reverse.
#[tokio::test]
async fn overlapping_day_lists_never_make_the_own_transfer_a_duplicate() {
    let (_db, pool, merchant_id) = setup().await;
    let day = yesterday() - Days::new(2);
    let sent = [
        Sent {
            payout_id: "po_before",
            created_at: at(day - Days::new(1), "12:00:00"),
            transfers: vec![at(day - Days::new(1), "12:00:01")],
        },
        Sent {
            payout_id: "po_own",
            created_at: at(day, "12:00:00"),
            transfers: vec![at(day, "12:00:01")],
        },
        Sent {
            payout_id: "po_far",
            created_at: at(day + Days::new(2), "12:00:00"),
            transfers: vec![at(day + Days::new(2), "12:00:01")],
        },
    ];
    let store = world(&pool, &merchant_id, &sent).await;
    let partner = ServerProcess::partner_sim(&["--store", &store, "--overlapping-days"]).await;

    let run = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(run.status, "completed", "{:?}", run.counts);
    assert_eq!(run.counts.get("duplicate"), None, "{:?}", run.counts);
    assert_eq!(run.counts.get("matched"), Some(&1), "{:?}", run.counts);
    assert_eq!(run.counts.len(), 1, "{:?}", run.counts);
    assert_eq!(partner.reversal_calls().await, 0);

    // An own transfer recorded as a duplicate to reverse (by an older, wrong run) is guarded.
    sqlx::query(
        "INSERT INTO partner_reversals (transfer_id, merchant_id, transfer_of, run_id, state, next_attempt_at) \
         VALUES ('tr_po_own_0', $1, 'po_own', $2, 'refused', now())",
    )
    .bind(&merchant_id)
    .bind(&run.id)
    .execute(&pool)
    .await
    .unwrap();
    reversal_worker(&pool, &partner).run_once().await.unwrap();
    assert_eq!(
        partner.reversal_calls().await,
        0,
        "the own transfer is never reversed"
    );
    assert_eq!(reversed_at_partner(&partner).await, 0);
}

/// What needs a person is exported: a `serve` process's `/metrics` counts the payouts the
/// latest run of a day found contradicting the partner, and the unfinished reversals with the
/// age of the oldest.
#[tokio::test]
async fn mismatches_and_unfinished_reversals_are_exported_as_metrics() {
    let (db_url, pool, merchant_id) = setup().await;
    let day = yesterday() - Days::new(1);
    let sent = [
        Sent {
            payout_id: "po_given_back",
            created_at: at(day, "07:00:00"),
            transfers: vec![at(day, "07:00:01")],
        },
        Sent {
            payout_id: "po_twice",
            created_at: at(day, "07:10:00"),
            transfers: vec![at(day, "07:10:01"), at(day, "07:11:00")],
        },
    ];
    let store = world(&pool, &merchant_id, &sent).await;
    sqlx::query("UPDATE payouts SET status = 'failed' WHERE id = 'po_given_back'")
        .execute(&pool)
        .await
        .unwrap();
    let partner = ServerProcess::partner_sim(&["--store", &store, "--refuse-reversals"]).await;
    let run = reconciler(&pool, &partner).run(day, true).await.unwrap();
    assert_eq!(run.status, "attention");

    let server = ServerProcess::start(
        &db_url,
        &[
            ("KAADXPAY_PARTNER_URL", partner.base_url.as_str()),
            ("KAADXPAY_RECONCILE_INTERVAL", "200ms"),
        ],
    )
    .await;
    let metrics = || async {
        reqwest::get(format!("{}/metrics", server.base_url))
            .await
            .unwrap()
            .text()
            .await
            .unwrap()
    };
    eventually(Duration::from_secs(10), "the figures exported", || async {
        metrics()
            .await
            .contains("kaadxpay_reconciliation_status_mismatches 1")
    })
    .await;
    let text = metrics().await;
    assert!(
        text.contains("kaadxpay_reconciliation_unfinished_reversals 1"),
        "{text}"
    );
    assert!(
        text.contains("kaadxpay_reconciliation_oldest_unfinished_reversal_seconds"),
        "{text}"
    );
    assert!(
        text.contains("kaadxpay_reconciliation_partial_runs 0"),
        "{text}"
    );
}
