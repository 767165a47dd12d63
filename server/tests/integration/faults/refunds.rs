//! A refund whose partner answer is lost is paid exactly once (API.md §13, "the same answer
//! classification"): refunds stopped before the call (`refund.before_partner_call`), then a
//! real `kaadxpay serve` killed with `SIGKILL` after the partner made their transfers (their
//! answers lost with it), then a partner that drops answers and fails: every refund ends
//! `succeeded` with exactly one transfer, never credited back on a guess, and `kaadxpay ledger
//! verify` finds the ledger whole.

use crate::common;

use std::collections::HashMap;
use std::time::Duration;

use serde_json::{json, Value};

use crate::api::refunds::{captured_order, refund, refund_body};
use common::{
    as_refs, count, eventually, free_port, partner_and_queueing_app, worker_env, ServerProcess,
    IBAN,
};

const REFUNDS: usize = 4;

/// How many transfers the partner made per reference.
fn transfers_per_refund(transfers: &[Value]) -> HashMap<String, usize> {
    let mut per_refund = HashMap::new();
    for transfer in transfers {
        let reference = transfer["reference"].as_str().unwrap().to_owned();
        *per_refund.entry(reference).or_insert(0) += 1;
    }
    per_refund
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn refunds_whose_partner_answers_are_lost_are_each_paid_once() {
    let port = free_port();
    // The in-process app only takes the refunds; the kaadxpay processes carry them out.
    let (partner, app) = partner_and_queueing_app().await;
    let order = captured_order(&app, "order", 10_000).await;
    for n in 0..REFUNDS {
        let key = format!("lost-{n}");
        let made = refund(&app, &order, &key, &refund_body(Some(1000), IBAN)).await;
        assert_eq!(made.status(), 201);
    }
    // One refund's attempt stops before the call (nothing reaches the partner; it is retried
    // after the batch, which never ends here); the others call the partner and then hang with
    // the answer in hand until the process is killed.
    let failpoints = "refund.before_partner_call=1*return;refund.after_partner_call=sleep(60000)";
    let doomed = worker_env(&partner.base_url, Some(failpoints));
    let doomed = as_refs(&doomed);
    let doomed = ServerProcess::start_at(port, &app.db_url, &doomed).await;
    eventually(
        Duration::from_secs(20),
        "the partner to have the transfers of the refunds not stopped",
        || async { partner.transfers().await.len() >= REFUNDS - 1 },
    )
    .await;
    doomed.kill();
    assert_eq!(
        count(&app.pool, "refunds WHERE status <> 'pending'").await,
        0,
        "every answer was lost with the process"
    );

    // The restarted process gets no answers at first, then errors, then answers.
    partner
        .configure(json!({"timeout_rate": 1.0, "error_rate": 0.0}))
        .await;
    let healthy = worker_env(&partner.base_url, None);
    let healthy = as_refs(&healthy);
    let _restarted = ServerProcess::start_at(port, &app.db_url, &healthy).await;
    tokio::time::sleep(Duration::from_secs(3)).await;
    assert_eq!(
        count(&app.pool, "refunds WHERE status = 'failed'").await,
        0,
        "no refund is given back on a guess"
    );
    partner
        .configure(json!({"timeout_rate": 0.0, "error_rate": 0.5}))
        .await;
    tokio::time::sleep(Duration::from_secs(1)).await;
    partner.configure(json!({"error_rate": 0.0})).await;
    eventually(
        Duration::from_secs(30),
        "every refund succeeded after the restart",
        || async { count(&app.pool, "refunds WHERE status = 'succeeded'").await == REFUNDS as i64 },
    )
    .await;
    let per_refund = transfers_per_refund(&partner.transfers().await);
    assert_eq!(per_refund.len(), REFUNDS);
    assert!(
        per_refund.values().all(|&transfers| transfers == 1),
        "no refund is paid twice: {per_refund:?}"
    );
    let order = common::json(app.get(&format!("/v1/orders/{order}")).await).await;
    assert_eq!(order["amount_refunded"], 4000);
    assert_eq!(app.available_eur().await, 6000);
}
