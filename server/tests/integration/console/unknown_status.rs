//! A list page asked for a status that is none of its list's: payouts, orders, webhook events
//! and reconciliation runs show nothing (`200`), the webhooks page still lists its endpoints,
//! and the balance's statement refuses its filter with the general sentence.

use crate::common;

use common::browser::Browser;
use common::webhooks::{create_endpoint, patch, IDLE_WORKER, ORDER};
use common::TestApp;

const ANY_CHOSEN: &str = "<option value=\"\" selected";
const GENERAL: &str = "These filters cannot be read; change them and try again.";

/// `page` asked for the status `bogus`, as the signed-in merchant sees it (`200`, the form
/// choosing no status); with `all` (`page` unfiltered) showing `row` and the filtered page not.
async fn bogus(app: &TestApp, browser: &Browser, page: &str, row: &str) -> String {
    let answer = common::browser::get(app, browser, &format!("{page}?status=bogus")).await;
    assert_eq!(answer.status(), 200, "{page}");
    let html = answer.text().await.unwrap();
    assert!(!html.contains(ANY_CHOSEN), "{html}");
    assert!(row.is_empty() || !html.contains(row), "{html}");
    let all = common::browser::page(app, browser, page).await;
    assert!(
        row.is_empty() || all.contains(row),
        "{page} shows {row} unfiltered"
    );
    html
}

#[tokio::test]
async fn an_unknown_status_lists_nothing_and_the_statement_refuses_it() {
    let app = common::spawn_app_with(&IDLE_WORKER).await;
    let url = "http://127.0.0.1:9/unknown-status";
    let endpoint = serde_json::json!({ "url": url });
    create_endpoint(&app, "unknown-status-endpoint", endpoint).await;
    app.create_order("unknown-status-order", ORDER).await;
    let browser = common::browser::signed_in(&app, false).await;

    let listed = [
        ("/payouts", "", "No payouts yet."),
        ("/orders", "href=\"/orders/ord_", "No orders yet."),
        (
            "/webhooks",
            "<section class=\"card event\">",
            "No events yet",
        ),
        ("/reconciliation", "", "No runs yet"),
    ];
    for (page, row, empty) in listed {
        let html = bogus(&app, &browser, page, row).await;
        assert!(html.contains(empty) && !html.contains(GENERAL), "{html}");
    }
    let webhooks = bogus(&app, &browser, "/webhooks", "").await;
    assert!(
        webhooks.contains(url),
        "the endpoints still show: {webhooks}"
    );

    let balance = bogus(&app, &browser, "/balance", "").await;
    assert!(balance.contains(GENERAL), "{balance}");
    assert!(!balance.contains("Status must be"), "{balance}");
}

/// The `value`s of the `<option>`s of the status filter's `<select>` on `html`, "any" (empty) left out.
fn offered_statuses(html: &str) -> Vec<String> {
    let select = html
        .split_once("<select id=\"status\" name=\"status\"")
        .and_then(|(_, rest)| rest.split_once("</select>"))
        .map(|(select, _)| select)
        .unwrap_or_else(|| panic!("a status filter: {html}"));
    select
        .split("<option value=\"")
        .skip(1)
        .filter_map(|option| option.split_once('"').map(|(value, _)| value.to_owned()))
        .filter(|value| !value.is_empty())
        .collect()
}

#[tokio::test]
async fn each_list_offers_every_state_of_its_list_and_webhooks_find_disabled_deliveries() {
    use kaadxpay_types::{
        BalanceTransactionType, DeliveryStatus, OrderStatus, PayoutStatus, RunStatus,
    };

    let app = common::spawn_app_with(&IDLE_WORKER).await;
    let endpoint = create_endpoint(
        &app,
        "disabled-endpoint",
        serde_json::json!({ "url": "http://127.0.0.1:9/disabled" }),
    )
    .await;
    app.create_order("disabled-order", ORDER).await;
    let browser = common::browser::signed_in(&app, false).await;

    let lists: [(&str, &[&str]); 5] = [
        ("/payouts", &PayoutStatus::NAMES),
        ("/orders", &OrderStatus::NAMES),
        ("/webhooks", &DeliveryStatus::NAMES),
        ("/reconciliation", &RunStatus::NAMES),
        ("/balance", &BalanceTransactionType::NAMES),
    ];
    for (page, names) in lists {
        let html = common::browser::page(&app, &browser, page).await;
        assert_eq!(offered_statuses(&html), names, "{page}");
    }

    // Disabling the endpoint disables its pending delivery: the filter finds it by that status.
    let endpoint_id = endpoint["id"].as_str().unwrap();
    let (status, _) = patch(&app, endpoint_id, serde_json::json!({"disabled": true})).await;
    assert_eq!(status, 200);
    let event = "<section class=\"card event\">";
    let found = common::browser::page(&app, &browser, "/webhooks?status=disabled").await;
    assert!(found.contains(event), "{found}");
    let pending = common::browser::page(&app, &browser, "/webhooks?status=pending").await;
    assert!(!pending.contains(event), "{pending}");
}
