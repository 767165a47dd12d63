//! A notice after every action (API.md §9, "Forms and people"): each console form that did
//! something ends on a page whose notice (`role="status"`) says what was done, in the reader's
//! language, once (a reload says nothing more); a refused one says nothing was done.

use crate::common;

use app::console::Role;
use common::browser::{get, page, signed_in, signed_in_as, submit, Browser};
use common::{spawn_app, TestApp};

/// The notice the page after a submit says it was done, if any.
async fn notice_after(app: &TestApp, browser: &Browser, answer: (u16, String)) -> Option<String> {
    let (status, location) = answer;
    assert_eq!(status, 303, "{location}");
    let shown = page(app, browser, &location).await;
    shown
        .split(r#"<p role="status" class="notice done">"#)
        .nth(1)
        .and_then(|rest| rest.split("</p>").next())
        .map(|notice| notice.replace("&#x27;", "'").replace("&#39;", "'"))
}

/// Submits `fields` to `action` and answers what the next page's notice says.
async fn done(app: &TestApp, browser: &Browser, action: &str, fields: &[(&str, &str)]) -> String {
    let answer = submit(app, browser, action, fields).await;
    assert_eq!(answer.0, 303, "{action}");
    let notice = notice_after(app, browser, answer.clone()).await;
    notice.unwrap_or_else(|| panic!("no notice after {action}: {answer:?}"))
}

async fn scalar(app: &TestApp, sql: &str) -> String {
    sqlx::query_scalar(sql).fetch_one(&app.pool).await.unwrap()
}

#[tokio::test]
async fn every_action_ends_on_a_page_that_says_what_was_done() {
    let app = spawn_app().await;
    app.fund(100_000).await;
    let owner = signed_in(&app, false).await;
    let payout = [
        ("idempotency_key", "notice-payout"),
        ("amount", "12.50"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", "DE89370400440532013000"),
    ];
    assert_eq!(
        done(&app, &owner, "/payouts", &payout).await,
        "The payout was created."
    );
    // Said once: the page again says nothing more.
    let (status, location) = submit(&app, &owner, "/payouts", &payout).await;
    assert_eq!(status, 303);
    assert!(!page(&app, &owner, &location).await.contains("notice done"));

    let order = app
        .create_order("notice-order", r#"{"amount": 2500, "currency": "EUR"}"#)
        .await;
    let order = order["id"].as_str().unwrap();
    let capture = format!("/orders/{order}/capture");
    assert_eq!(
        done(&app, &owner, &capture, &[]).await,
        "The order was captured."
    );
    let refund = [
        ("idempotency_key", "notice-refund"),
        ("amount", "2,50"),
        ("account_holder", "Grace Hopper"),
        ("iban", "DE89370400440532013000"),
    ];
    assert_eq!(
        done(&app, &owner, &format!("/orders/{order}/refunds"), &refund).await,
        "The refund was created."
    );

    let threshold = [("currency", "EUR"), ("amount", "500.00")];
    assert_eq!(
        done(&app, &owner, "/settings/payouts", &threshold).await,
        "The approval threshold was saved."
    );
    // A payout over it awaits approval; another member approves it.
    let big = [
        ("idempotency_key", "notice-big-payout"),
        ("amount", "600.00"),
        ("currency", "EUR"),
        ("account_holder", "Ada Lovelace"),
        ("iban", "DE89370400440532013000"),
    ];
    assert_eq!(
        done(&app, &owner, "/payouts", &big).await,
        "The payout was created."
    );
    let big_id = scalar(&app, "SELECT id FROM payouts WHERE amount = 60000").await;
    let approver = signed_in_as(&app, "approver@notices.test", Some(Role::Owner)).await;
    let approve = format!("/payouts/{big_id}/approve");
    let approval = [("idempotency_key", "notice-approval")];
    assert_eq!(
        done(&app, &approver, &approve, &approval).await,
        "The payout was approved."
    );
    let removed = [("currency", "EUR"), ("amount", "")];
    assert_eq!(
        done(&app, &owner, "/settings/payouts", &removed).await,
        "The approval threshold was removed."
    );

    let endpoint = [
        ("idempotency_key", "notice-endpoint"),
        ("url", "http://127.0.0.1:9/hooks"),
    ];
    assert_eq!(
        done(&app, &owner, "/webhooks/endpoints", &endpoint).await,
        "The webhook endpoint was added."
    );
    let endpoint = scalar(&app, "SELECT id::text FROM webhook_endpoints LIMIT 1").await;
    let act = |action: &str| format!("/webhooks/endpoints/{endpoint}/{action}");
    let test_event = [
        ("idempotency_key", "notice-test-event"),
        ("event_type", "payout.paid"),
    ];
    assert_eq!(
        done(&app, &owner, &act("test"), &test_event).await,
        "A test event was sent to the endpoint."
    );
    let today = chrono::Utc::now().date_naive().to_string();
    let recover = [
        ("idempotency_key", "notice-recover"),
        ("since", today.as_str()),
    ];
    assert!(done(&app, &owner, &act("recover"), &recover)
        .await
        .contains("failed deliveries"));
    assert_eq!(
        done(&app, &owner, &act("disable"), &[]).await,
        "The webhook endpoint was disabled: nothing is sent to it until it is enabled."
    );
    assert_eq!(
        done(&app, &owner, &act("enable"), &[]).await,
        "The webhook endpoint was enabled."
    );
    let event = scalar(
        &app,
        "SELECT id::text FROM events ORDER BY created_at DESC LIMIT 1",
    )
    .await;
    let redeliver = format!("/webhooks/events/{event}/redeliver");
    let key = [("idempotency_key", "notice-redeliver")];
    assert_eq!(
        done(&app, &owner, &redeliver, &key).await,
        "The event is being delivered again."
    );

    let api_key = [
        ("idempotency_key", "notice-api-key"),
        ("name", "Notices"),
        ("access", "read_only"),
    ];
    assert_eq!(
        done(&app, &owner, "/settings/keys", &api_key).await,
        "The API key was created."
    );
    let api_key = scalar(&app, "SELECT id FROM api_keys WHERE name = 'Notices'").await;
    let roll = [("idempotency_key", "notice-roll"), ("overlap", "1h")];
    assert_eq!(
        done(
            &app,
            &owner,
            &format!("/settings/keys/{api_key}/roll"),
            &roll
        )
        .await,
        "The API key was rolled."
    );

    let viewer = signed_in_as(&app, "viewer@notices.test", Some(Role::Viewer)).await;
    drop(viewer);
    let member = scalar(
        &app,
        "SELECT id FROM users WHERE email = 'viewer@notices.test'",
    )
    .await;
    let role = format!("/settings/team/members/{member}/role");
    assert_eq!(
        done(&app, &owner, &role, &[("role", "finance")]).await,
        "The member's role was changed."
    );

    let run = [("idempotency_key", "notice-run"), ("date", today.as_str())];
    assert_eq!(
        done(&app, &owner, "/reconciliation/run", &run).await,
        "Reconciliation was run."
    );

    let zone = [("time_zone", "Asia/Shanghai")];
    assert_eq!(
        done(&app, &owner, "/settings/profile", &zone).await,
        "Time zone saved: times are now shown in Asia/Shanghai."
    );
    // In the reader's language.
    let chinese: Browser = (owner.0.clone(), format!("{}; kaadxpay_lang=zh-CN", owner.1));
    let again = [("time_zone", "UTC")];
    let said = done(&app, &chinese, "/settings/profile", &again).await;
    assert!(said.contains("UTC") && !said.contains("saved"), "{said}");

    // A refused action says nothing was done.
    let refused = submit(
        &app,
        &owner,
        "/settings/profile",
        &[("time_zone", "Mars/Olympus")],
    )
    .await;
    assert_eq!(notice_after(&app, &owner, refused).await, None);

    // Last: requiring two-step sign-in sends every member to set it up, where it is said.
    let required = [("required", "on")];
    assert_eq!(
        done(&app, &owner, "/settings/security/required", &required).await,
        "Two-step sign-in is now required of every member."
    );
    assert_eq!(get(&app, &owner, "/settings/security").await.status(), 200);
}
