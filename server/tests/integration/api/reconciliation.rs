//! A merchant sees reconciliation runs through its own items only (API.md §11, issue 27 item
//! 7): a run's status for a merchant is computed from that merchant's items, in the list and in
//! the run, so no merchant learns of another's mismatches or unfinished reversals.

use crate::common;

use serde_json::Value;

use common::{create_merchant, json, spawn_app, TestApp, TestMerchant};

/// A run whose only troubles are `troubled`'s: a status mismatch and an unfinished reversal.
async fn run_with_anothers_troubles(app: &TestApp, troubled: &TestMerchant) -> String {
    sqlx::query(
        "WITH run AS (INSERT INTO reconciliation_runs (id, run_date, applied, status) \
                      VALUES ('rec_shared', current_date, true, 'attention') RETURNING id) \
         INSERT INTO reconciliation_items (run_id, position, merchant_id, kind, transfer_of, \
           transfer_id, amount, currency, action) \
         SELECT id, position, merchant_id, kind, transfer_of, transfer_id, 100, 'EUR', action \
         FROM run, (VALUES (0, $1, 'matched', 'po_mine', 'tr_1', NULL), \
                           (1, $2, 'status_mismatch', 'po_theirs', 'tr_2', NULL), \
                           (2, $2, 'duplicate', 'po_theirs', 'tr_3', 'refused')) \
           AS item (position, merchant_id, kind, transfer_of, transfer_id, action)",
    )
    .bind(&app.merchant.id)
    .bind(&troubled.id)
    .execute(&app.pool)
    .await
    .unwrap();
    "rec_shared".to_owned()
}

/// The run `id` as `merchant` lists it and reads it: both statuses, and its items' kinds.
async fn seen_by(app: &TestApp, merchant: &TestMerchant, id: &str) -> (Value, Value, Vec<Value>) {
    let listed = json(app.get_as(merchant, "/v1/reconciliation-runs").await).await;
    let listed = listed["data"]
        .as_array()
        .unwrap()
        .iter()
        .find(|run| run["id"] == id)
        .unwrap_or_else(|| panic!("{id} is listed: {listed}"))
        .clone();
    let run = json(
        app.get_as(merchant, &format!("/v1/reconciliation-runs/{id}"))
            .await,
    )
    .await;
    let kinds = run["items"]
        .as_array()
        .unwrap()
        .iter()
        .map(|item| item["kind"].clone())
        .collect();
    (listed["status"].clone(), run["status"].clone(), kinds)
}

#[tokio::test]
async fn a_merchant_sees_a_runs_status_made_of_its_own_items_only() {
    let app = spawn_app().await;
    let troubled = create_merchant(&app.pool, "Troubled").await;
    let id = run_with_anothers_troubles(&app, &troubled).await;

    let (listed, read, kinds) = seen_by(&app, &app.merchant, &id).await;
    assert_eq!((listed, read), ("completed".into(), "completed".into()));
    assert_eq!(kinds, ["matched"]);

    let (listed, read, kinds) = seen_by(&app, &troubled, &id).await;
    assert_eq!((listed, read), ("attention".into(), "attention".into()));
    assert_eq!(kinds, ["status_mismatch", "duplicate"]);
}
