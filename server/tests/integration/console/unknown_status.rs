//! A list page asked for a status that is none of its list's: payouts, orders, webhook events
//! and reconciliation runs show nothing (`200`), the webhooks page still lists its endpoints,
//! and the balance's statement refuses its filter with the general sentence.

use crate::common;

use common::browser::Browser;
use common::webhooks::{create_endpoint, IDLE_WORKER, ORDER};
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
