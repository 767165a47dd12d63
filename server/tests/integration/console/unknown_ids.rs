//! Ids cross the console typed (issue 28): an object the database names by a type and an id
//! that is not of it (an audit entry's, a statement item's source, a key's resource) fails the
//! page that would show it, never shown as it is; and a list's cursor is an id of the list's
//! own kind, any other refused in the sentence the server's refusal of a cursor gets.

use sqlx::Executor;

use super::unknown_codes::shown;
use crate::common;

use common::browser::{get, signed_in};
use common::webhooks::{create_endpoint, IDLE_WORKER, ORDER};
use common::TestApp;

/// An id of no kind the console knows.
const ODD: &str = "pot_teapot";

/// What a list says of a cursor that names none of its objects.
const NO_SUCH_PAGE: &str = "That page no longer exists; start from the first page.";

/// Gives the statement item about the order `order` the source `kind` `id`, behind the
/// statement's append-only trigger (as only a superuser could).
async fn restate(app: &TestApp, order: &str, kind: &str, id: &str) {
    let mut conn = app.pool.acquire().await.unwrap();
    conn.execute("SET session_replication_role = replica")
        .await
        .unwrap();
    sqlx::query(
        "UPDATE balance_transactions SET source_type = $2, source_id = $3 WHERE source_id = $1",
    )
    .bind(order)
    .bind(kind)
    .bind(id)
    .execute(&mut *conn)
    .await
    .unwrap();
    conn.execute("SET session_replication_role = DEFAULT")
        .await
        .unwrap();
}

/// The merchant's orders that changed its balance, oldest first.
async fn captured_orders(app: &TestApp) -> Vec<String> {
    sqlx::query_scalar(
        "SELECT source_id FROM balance_transactions WHERE source_type = 'order' ORDER BY created_at",
    )
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_object_id_of_no_known_kind_fails_its_page() {
    let app = common::spawn_app_with(&IDLE_WORKER).await;
    let endpoint = serde_json::json!({ "url": "http://127.0.0.1:9/odd-object" });
    create_endpoint(&app, "odd-object", endpoint).await;
    let owner = signed_in(&app, false).await;
    assert_eq!(
        shown(&app, &owner, "/keys/odd-object", "whe_").await,
        (200, true),
        "a key's resource of a known kind is shown"
    );

    sqlx::query("UPDATE idempotency_keys SET resource_id = $1 WHERE key = 'odd-object'")
        .bind(ODD)
        .execute(&app.pool)
        .await
        .unwrap();
    sqlx::query(
        "INSERT INTO audit_log (id, merchant_id, actor_kind, actor, action, object_type, object_id) \
         VALUES ('aud_odd', $1, 'user', 'a@audit.test', 'payout.created', 'payout', $2)",
    )
    .bind(&app.merchant.id)
    .bind(ODD)
    .execute(&app.pool)
    .await
    .unwrap();
    app.fund(1000).await;
    restate(&app, &captured_orders(&app).await[0], "order", ODD).await;
    let paths = ["/keys/odd-object", "/settings/audit", "/balance"];
    let mut answers = Vec::new();
    for path in paths {
        answers.push((path, shown(&app, &owner, path, ODD).await));
    }
    assert_eq!(answers, paths.map(|path| (path, (500, false))));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cursor_that_is_not_of_its_list_is_refused_as_one_that_names_nothing() {
    let app = common::spawn_app_with(&IDLE_WORKER).await;
    let url = "http://127.0.0.1:9/cursors";
    let endpoint =
        create_endpoint(&app, "cursor-endpoint", serde_json::json!({ "url": url })).await;
    let order = app.create_order("cursor-order", ORDER).await;
    let owner = signed_in(&app, false).await;
    let (order, endpoint) = (
        order["id"].as_str().unwrap(),
        endpoint["id"].as_str().unwrap(),
    );
    let own = format!("/orders?starting_after={order}");
    assert_eq!(
        shown(&app, &owner, &own, NO_SUCH_PAGE).await,
        (200, false),
        "an order's cursor pages the orders"
    );

    let lists = [
        "/payouts",
        "/orders",
        "/balance",
        "/requests",
        "/settings/audit",
        "/webhooks",
    ];
    for list in lists {
        for cursor in ["bogus", endpoint, order] {
            if list == "/orders" && cursor == order {
                continue;
            }
            let path = format!("{list}?starting_after={cursor}");
            let shown = shown(&app, &owner, &path, NO_SUCH_PAGE).await;
            assert_eq!(shown, (200, true), "{path}");
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_pages_link_the_objects_they_name() {
    let app = common::spawn_app().await;
    let payout = app.fund_and_pay_out().await;
    // Two more orders, whose items become the partner's return of the payout's transfer and
    // of a refund's.
    app.fund(2).await;
    app.fund(3).await;
    let orders = captured_orders(&app).await;
    restate(&app, &orders[1], "reversal", &payout).await;
    restate(&app, &orders[2], "reversal", "re_returned").await;
    let order = &orders[0];
    let owner = signed_in(&app, false).await;
    let page = |path: String| {
        let owner = &owner;
        let app = &app;
        async move { get(app, owner, &path).await.text().await.unwrap() }
    };

    let balance = page("/balance".into()).await;
    let payout_link = format!("<a href=\"/payouts/{payout}\">{payout}</a>");
    assert!(
        balance.contains(&format!("<a href=\"/orders/{order}\">{order}</a>")),
        "{balance}"
    );
    let about_payout = format!("balance_transactions WHERE source_id = '{payout}'");
    let items = app.count(&about_payout).await;
    assert!(items >= 2, "the payout's item and its return's");
    assert_eq!(
        balance.matches(&payout_link).count() as i64,
        items,
        "{balance}"
    );
    assert!(balance.contains("<code>re_returned</code>"), "{balance}");

    let paid_by_key = page("/keys/payout".into()).await;
    assert!(
        paid_by_key.contains(&format!("href=\"/payouts/{payout}\"")),
        "{paid_by_key}"
    );
    let ordered_by_key = page("/keys/fund-1000".into()).await;
    assert!(
        ordered_by_key.contains(&format!("href=\"/orders/{order}\"")),
        "{ordered_by_key}"
    );
    let support = signed_in(&app, true).await;
    let path = format!("/support/timeline?merchant={}&key=payout", app.merchant.id);
    let seen = get(&app, &support, &path).await.text().await.unwrap();
    // Support's link to the payout's timeline, its id percent-encoded.
    let encoded = payout.replace('_', "%5F");
    assert!(seen.contains(&format!("payout={encoded}\"")), "{seen}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_api_key_that_acted_is_named_by_its_id_or_its_entry_fails_the_log() {
    let app = common::spawn_app_with(&IDLE_WORKER).await;
    let owner = signed_in(&app, false).await;
    let entry = |id: &str, actor: &str| {
        sqlx::query(
            "INSERT INTO audit_log (id, merchant_id, actor_kind, actor, action, object_type, object_id) \
             VALUES ($1, $2, 'api_key', $3, 'payout.created', 'payout', 'po_acted')",
        )
        .bind(id.to_owned())
        .bind(app.merchant.id.to_string())
        .bind(actor.to_owned())
    };
    entry("aud_key", "key_acted")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        shown(&app, &owner, "/settings/audit", "key_acted").await,
        (200, true)
    );
    entry("aud_odd_key", "sk_live_teapot")
        .execute(&app.pool)
        .await
        .unwrap();
    assert_eq!(
        shown(&app, &owner, "/settings/audit", "sk_live_teapot").await,
        (500, false)
    );
}
