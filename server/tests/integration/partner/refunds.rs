//! Refunds take the payouts' path to the partner (API.md §13): through the real worker, the
//! partner's webhooks and the simulator in-process (embedded mode), each test-mode IBAN gives
//! its outcome to a refund; a refund that fails or whose transfer comes back gives its amount
//! back once (to `available` and to what is left to refund of its order, on the statement as
//! `refund_returned`), with the events `refund.created`, `refund.succeeded` and `refund.failed`;
//! a duplicated refund transfer is reversed once by reconciliation, the refund staying
//! `succeeded`; and the ledger stays whole.

use crate::common;

use std::time::Duration;

use chrono::Utc;
use serde_json::{json, Value};

use super::test_mode::{embedded_app, iban, payout_events};
use crate::api::refunds::{captured_order, refund};
use app::console::Role;
use common::browser::{assert_search_lands, page, signed_in, signed_in_as};
use common::{eventually, json, partner_reversal_calls, partner_transfers_of, TestApp};
use kaadxpay_partner::client::PartnerClient;
use kaadxpay_partner_sim::scenarios::Scenario;
use server::reconcile::Reconciler;

const ORDER: i64 = 10_000;
const AMOUNT: i64 = 1_000;

/// An app in embedded mode with quick workers, and a captured order of [`ORDER`] EUR cents (the
/// only money the merchant has).
async fn app_with_order() -> (TestApp, String, String) {
    let (app, partner_url) = embedded_app().await;
    let order = captured_order(&app, "order", ORDER).await;
    (app, partner_url, order)
}

/// Refunds [`AMOUNT`] of `order` to `scenario`'s IBAN; returns the refund's id.
async fn refund_to(app: &TestApp, order: &str, scenario: Scenario) -> String {
    let body = json!({"amount": AMOUNT,
        "destination": {"account_holder": "Grace Hopper", "iban": iban(scenario)}});
    let answer = refund(app, order, &format!("{scenario:?}"), &body).await;
    assert_eq!(answer.status(), 201);
    json(answer).await["id"].as_str().unwrap().to_owned()
}

async fn wait_for(app: &TestApp, id: &str, status: &str) -> Value {
    let path = format!("/v1/refunds/{id}");
    eventually(
        Duration::from_secs(15),
        &format!("refund {status}"),
        || async { json(app.get(&path).await).await["status"] == status },
    )
    .await;
    json(app.get(&path).await).await
}

/// The order's `amount_refunded` and the merchant's available EUR.
async fn figures(app: &TestApp, order: &str) -> (i64, i64) {
    let order = json(app.get(&format!("/v1/orders/{order}")).await).await;
    (
        order["amount_refunded"].as_i64().unwrap(),
        app.available_eur().await,
    )
}

/// The statement's items about `id`, oldest first: (type, amount, source type).
async fn items_of(app: &TestApp, id: &str) -> Vec<(String, i64, String)> {
    let statement = json(app.get("/v1/balance-transactions?limit=100").await).await;
    let mut items: Vec<(String, i64, String)> = statement["data"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|item| item["source"]["id"] == id)
        .map(|item| {
            let text = |value: &Value| value.as_str().unwrap().to_owned();
            let amount = item["amount"].as_i64().unwrap();
            (text(&item["type"]), amount, text(&item["source"]["type"]))
        })
        .collect();
    items.reverse();
    items
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_paid_iban_makes_a_refund_succeed_with_one_transfer_under_its_key() {
    let (app, partner_url, order) = app_with_order().await;
    let id = refund_to(&app, &order, Scenario::Paid).await;
    wait_for(&app, &id, "succeeded").await;
    let made = partner_transfers_of(&partner_url, &id).await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0]["idempotency_key"], format!("kxp-{id}-Paid"));
    assert_eq!(made[0]["amount"], AMOUNT);
    assert_eq!(figures(&app, &order).await, (AMOUNT, ORDER - AMOUNT));
    assert_eq!(
        payout_events(&app, &id).await,
        ["refund.created", "refund.succeeded"]
    );
    let refund = (String::from("refund"), -AMOUNT, String::from("refund"));
    assert_eq!(items_of(&app, &id).await, [refund]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_refused_iban_fails_the_refund_and_gives_its_amount_back_once() {
    let (app, partner_url, order) = app_with_order().await;
    let id = refund_to(&app, &order, Scenario::Refused).await;
    let failed = wait_for(&app, &id, "failed").await;
    assert_eq!(failed["failure_code"], "account_closed");
    assert!(partner_transfers_of(&partner_url, &id).await.is_empty());
    assert_eq!(figures(&app, &order).await, (0, ORDER));
    assert_eq!(
        payout_events(&app, &id).await,
        ["refund.created", "refund.failed"]
    );
    assert_eq!(
        items_of(&app, &id).await,
        [
            ("refund".into(), -AMOUNT, "refund".into()),
            ("refund_returned".into(), AMOUNT, "refund".into())
        ]
    );
    // A failed refund does not count: the whole order may be refunded again.
    let body =
        json!({"destination": {"account_holder": "Grace Hopper", "iban": iban(Scenario::Paid)}});
    let again = json(refund(&app, &order, "again", &body).await).await;
    assert_eq!(again["amount"], ORDER);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn the_returned_iban_succeeds_then_fails_and_gives_the_amount_back_once() {
    let (app, partner_url, order) = app_with_order().await;
    let id = refund_to(&app, &order, Scenario::Returned).await;
    wait_for(&app, &id, "succeeded").await;
    assert_eq!(figures(&app, &order).await, (AMOUNT, ORDER - AMOUNT));
    let failed = wait_for(&app, &id, "failed").await;
    assert_eq!(failed["failure_code"], "partner_reversed");
    // The webhook and the worker's poll both see it: the money comes back once.
    tokio::time::sleep(Duration::from_millis(500)).await;
    assert_eq!(figures(&app, &order).await, (0, ORDER));
    let made = partner_transfers_of(&partner_url, &id).await;
    assert_eq!(made.len(), 1);
    assert_eq!(made[0]["status"], "reversed");
    assert_eq!(
        payout_events(&app, &id).await,
        ["refund.created", "refund.succeeded", "refund.failed"]
    );
    assert_eq!(
        items_of(&app, &id).await,
        [
            ("refund".into(), -AMOUNT, "refund".into()),
            ("refund_returned".into(), AMOUNT, "reversal".into())
        ]
    );
}

/// A refund of `order` to the duplicating IBAN, `succeeded`, both its transfers paid at the
/// partner: the refund's id, its own transfer's and the duplicate's.
async fn duplicated_refund(app: &TestApp, partner_url: &str, order: &str) -> [String; 3] {
    let id = refund_to(app, order, Scenario::Duplicated).await;
    wait_for(app, &id, "succeeded").await;
    let made = partner_transfers_of(partner_url, &id).await;
    assert_eq!(made.len(), 2, "the partner booked it twice");
    let own: String = sqlx::query_scalar("SELECT partner_transfer_id FROM refunds WHERE id = $1")
        .bind(&id)
        .fetch_one(&app.pool)
        .await
        .unwrap();
    let duplicate = made
        .iter()
        .map(|transfer| transfer["id"].as_str().unwrap().to_owned())
        .find(|transfer| *transfer != own)
        .unwrap();
    let statuses = || async {
        let made = partner_transfers_of(partner_url, &id).await;
        made.iter()
            .map(|transfer| transfer["status"].clone())
            .collect::<Vec<_>>()
    };
    let settled = || async { statuses().await == [json!("paid"), json!("paid")] };
    eventually(Duration::from_secs(5), "both transfers paid", settled).await;
    [id, own, duplicate]
}

fn reconciler(app: &TestApp, partner_url: &str) -> Reconciler {
    Reconciler {
        pool: app.pool.clone(),
        partner: PartnerClient::new(partner_url, Duration::from_secs(5)),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_duplicated_refund_transfer_is_reversed_once_and_the_refund_stays_succeeded() {
    let (app, partner_url, order) = app_with_order().await;
    let [id, own, duplicate] = duplicated_refund(&app, &partner_url, &order).await;
    let reconciler = reconciler(&app, &partner_url);
    let today = Utc::now().date_naive();
    let (first, second) = tokio::join!(reconciler.run(today, true), reconciler.run(today, true));
    let (first, second) = (first.unwrap(), second.unwrap());
    assert_eq!(
        first.counts.get("duplicate"),
        Some(&1),
        "{:?}",
        first.counts
    );
    assert_eq!(first.counts.get("matched"), Some(&1), "{:?}", first.counts);
    assert_eq!(second.counts.get("duplicate"), Some(&1));
    assert_eq!(partner_reversal_calls(&partner_url).await, 1);
    let again = reconciler.run(today, true).await.unwrap();
    assert_eq!(again.status, "completed");
    assert_eq!(partner_reversal_calls(&partner_url).await, 1);

    let made = partner_transfers_of(&partner_url, &id).await;
    let status_of = |wanted: &str| {
        made.iter()
            .find(|transfer| transfer["id"] == wanted)
            .unwrap()["status"]
            .clone()
    };
    assert_eq!(status_of(&duplicate), "reversed");
    assert_eq!(status_of(&own), "paid");
    let (status, reversed): (String, i32) =
        sqlx::query_as("SELECT status, duplicates_reversed FROM refunds WHERE id = $1")
            .bind(&id)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!((status.as_str(), reversed), ("succeeded", 1));
    // The money left once; the duplicate's reversal is the partner's money, not the merchant's.
    assert_eq!(figures(&app, &order).await, (AMOUNT, ORDER - AMOUNT));
}

/// Names that lie are how money bugs happen: the item of a refund's duplicate names the refund,
/// stored as one (`transfer_of`), served under the contract's `payout_id`, and shown on the run's
/// page as a refund, never as a payout nor linked to a payout's page.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn a_duplicated_refunds_reconciliation_item_names_the_refund_and_links_its_order() {
    let (app, partner_url, order) = app_with_order().await;
    let [id, _, duplicate] = duplicated_refund(&app, &partner_url, &order).await;
    let today = Utc::now().date_naive();
    let run = reconciler(&app, &partner_url)
        .run(today, true)
        .await
        .unwrap();
    assert_eq!(run.counts.get("duplicate"), Some(&1), "{:?}", run.counts);

    let reversed_for: String =
        sqlx::query_scalar("SELECT transfer_of FROM partner_reversals WHERE transfer_id = $1")
            .bind(&duplicate)
            .fetch_one(&app.pool)
            .await
            .unwrap();
    assert_eq!(reversed_for, id);
    let served = json(
        app.get(&format!("/v1/reconciliation-runs/{}", run.id))
            .await,
    )
    .await;
    let item = served["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|item| item["transfer_id"] == duplicate.as_str())
        .unwrap()
        .clone();
    assert_eq!(
        (
            item["kind"].as_str(),
            item["payout_id"].as_str(),
            item["action"].as_str()
        ),
        (Some("duplicate"), Some(id.as_str()), Some("reversed"))
    );

    let member = signed_in_as(&app, "finance@duplicates.test", Some(Role::Finance)).await;
    let shown = page(&app, &member, &format!("/reconciliation/{}", run.id)).await;
    assert!(shown.contains("<th>Payout or refund</th>"), "{shown}");
    let row = shown
        .split("<tr>")
        .find(|row| row.contains(duplicate.as_str()))
        .unwrap_or_else(|| panic!("no row of {duplicate}: {shown}"));
    let linked = format!("<a href=\"/orders/{order}\">{id}</a>");
    assert!(row.contains("refund") && row.contains(&linked), "{row}");
    assert!(!row.contains("payout"), "{row}");

    let support = signed_in_as(&app, "support@duplicates.test", None).await;
    let shown = page(&app, &support, &format!("/reconciliation/{}", run.id)).await;
    let encoded = |id: &str| id.replace('_', "%5F");
    let timeline = format!(
        "/support/timeline?merchant={}&amp;order={}",
        encoded(&app.merchant.id),
        encoded(&order)
    );
    assert!(shown.contains(&timeline), "{shown}");
}

/// Support's search finds a refund from any of its identifiers (API.md §9: its id, its partner
/// transfer id, its end-to-end key, the duplicate transfer reconciliation reversed, its event)
/// and lands on the timeline of the order it refunds, where its moments are.
#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn support_finds_a_refund_from_any_of_its_identifiers_on_its_orders_timeline() {
    let (app, partner_url, order) = app_with_order().await;
    let [id, own, duplicate] = duplicated_refund(&app, &partner_url, &order).await;
    reconciler(&app, &partner_url)
        .run(Utc::now().date_naive(), true)
        .await
        .unwrap();
    let (partner_key, event_id): (String, String) = sqlx::query_as(
        "SELECT r.partner_key, e.id::text FROM refunds r JOIN events e \
         ON e.payload->'data'->'object'->>'id' = r.id AND e.event_type = 'refund.created' \
         WHERE r.id = $1",
    )
    .bind(&id)
    .fetch_one(&app.pool)
    .await
    .unwrap();

    let support = signed_in(&app, true).await;
    let lands_on = format!(
        "/support/timeline?merchant={}&order={order}",
        app.merchant.id
    );
    for identifier in [&id, &own, &duplicate, &partner_key, &event_id] {
        assert_search_lands(&app, &support, identifier, &lands_on).await;
    }
}
