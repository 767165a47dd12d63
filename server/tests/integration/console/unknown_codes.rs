//! Codes cross the console typed (issue 28 item 4): a code the database holds that the console
//! does not know (an error code in the request log, an action in the audit log, a partner call
//! on a timeline, an event's type) fails the page that would show it, never shown as it is nor in a word for
//! something else.

use std::time::Duration;

use crate::common;

use common::browser::{get, signed_in, Browser};
use common::{eventually, payout_body, spawn_app, TestApp, IBAN};

/// The page at `path`: its HTTP status, and whether it shows `code`.
pub(super) async fn shown(app: &TestApp, member: &Browser, path: &str, code: &str) -> (u16, bool) {
    let response = get(app, member, path).await;
    let status = response.status().as_u16();
    (status, response.text().await.unwrap().contains(code))
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_error_code_the_console_does_not_know_fails_its_pages() {
    let app = spawn_app().await;
    // Refused for want of funds: the key keeps the answer, the log its code.
    let payout = payout_body(100, IBAN).to_string();
    let refused = app.post("/v1/payouts", Some("odd-code"), &payout).await;
    assert_eq!(refused.status(), 402);
    let logged = || async { app.count("request_log WHERE error_code IS NOT NULL").await == 1 };
    eventually(Duration::from_secs(15), "the request is logged", logged).await;
    let member = signed_in(&app, false).await;
    let known = shown(&app, &member, "/requests", "insufficient_funds").await;
    assert_eq!(known, (200, true), "a known code is shown");

    sqlx::query("UPDATE request_log SET error_code = 'teapot'")
        .execute(&app.pool)
        .await
        .unwrap();
    let request_id: String = sqlx::query_scalar("SELECT id FROM request_log")
        .fetch_one(&app.pool)
        .await
        .unwrap();
    for path in [
        "/requests".to_owned(),
        format!("/requests/{request_id}"),
        "/keys/odd-code".to_owned(),
    ] {
        let shown = shown(&app, &member, &path, "teapot").await;
        assert_eq!(shown, (500, false), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_audit_action_the_console_does_not_know_fails_the_audit_log() {
    let app = spawn_app().await;
    sqlx::query(
        "INSERT INTO audit_log (id, merchant_id, actor_kind, actor, action, object_type, object_id) \
         VALUES ('aud_odd', $1, 'user', 'a@audit.test', 'payout.deleted', 'payout', 'po_1')",
    )
    .bind(&app.merchant.id)
    .execute(&app.pool)
    .await
    .unwrap();
    let owner = signed_in(&app, false).await;
    let shown = shown(&app, &owner, "/settings/audit", "payout.deleted").await;
    assert_eq!(shown, (500, false));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_partner_call_the_console_does_not_know_fails_the_timelines() {
    let app = spawn_app().await;
    let payout = app.fund_and_pay_out().await;
    let noted = |call: &'static str| {
        sqlx::query(
            "INSERT INTO partner_calls (merchant_id, transfer_of, call, partner_key, answer, latency_ms) \
             VALUES ($1, $2, $3, 'kxp-odd', 'transfer tr_odd paid', 7)",
        )
        .bind(&app.merchant.id)
        .bind(&payout)
        .bind(call)
    };
    noted("listing").execute(&app.pool).await.unwrap();
    let member = signed_in(&app, false).await;
    let path = format!("/payouts/{payout}");
    let known = shown(&app, &member, &path, "kxp-odd").await;
    assert_eq!(known, (200, true), "a known call is shown");

    noted("teapot").execute(&app.pool).await.unwrap();
    for path in [path, "/keys/payout".to_owned()] {
        let shown = shown(&app, &member, &path, "teapot").await;
        assert_eq!(shown, (500, false), "{path}");
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_event_type_the_console_does_not_know_fails_the_webhooks_page() {
    let app = spawn_app().await;
    app.create_order("odd-event", r#"{"amount": 1000, "currency": "EUR"}"#)
        .await;
    let member = signed_in(&app, false).await;
    let known = shown(&app, &member, "/webhooks", "order.created").await;
    assert_eq!(known, (200, true), "a known event type is shown");

    sqlx::query("UPDATE events SET event_type = 'order.teapot'")
        .execute(&app.pool)
        .await
        .unwrap();
    let shown = shown(&app, &member, "/webhooks", "order.teapot").await;
    assert_eq!(shown, (500, false));
}
