//! The actions the audit log records since issue 27 item 6 (API.md §11), each once, in the
//! transaction of its change and only when something changed: a capture and a cancel (API and
//! console), a test event, a recovery, a redelivery and a member's "run reconciliation now".
//! (Step-ups and recovery codes: console/two_factor.rs.)

use crate::common;

use app::console::Role;
use serde_json::{json, Value};

use common::browser::{signed_in_as, submit_from};
use common::webhooks::create_endpoint;
use common::{json, spawn_app, TestApp};

/// The app's merchant's entries of `action`: actor kind, actor, object id and after.
async fn recorded(app: &TestApp, action: &str) -> Vec<(String, String, String, Option<Value>)> {
    sqlx::query_as(
        "SELECT actor_kind, actor, object_id, after FROM audit_log \
         WHERE merchant_id = $1 AND action = $2 ORDER BY seq",
    )
    .bind(&app.merchant.id)
    .bind(action)
    .fetch_all(&app.pool)
    .await
    .unwrap()
}

/// The first API key of the app's merchant.
async fn key_id(app: &TestApp) -> String {
    sqlx::query_scalar("SELECT id FROM api_keys WHERE merchant_id = $1")
        .bind(&app.merchant.id)
        .fetch_one(&app.pool)
        .await
        .unwrap()
}

async fn new_order(app: &TestApp, key: &str) -> String {
    let order = app
        .create_order(key, r#"{"amount": 2500, "currency": "EUR"}"#)
        .await;
    order["id"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn captures_cancels_tests_recoveries_and_redeliveries_are_audited_once() {
    let app = spawn_app().await;
    let key = key_id(&app).await;
    let captured = new_order(&app, "audit-order-1").await;
    let cancelled = new_order(&app, "audit-order-2").await;
    for _ in 0..2 {
        let answer = app
            .put(
                &format!("/v1/orders/{captured}"),
                r#"{"status": "captured"}"#,
            )
            .await;
        assert_eq!(answer.status(), 200);
    }
    let answer = app
        .put(
            &format!("/v1/orders/{cancelled}"),
            r#"{"status": "cancelled"}"#,
        )
        .await;
    assert_eq!(answer.status(), 200);
    let refused = app
        .put(
            &format!("/v1/orders/{cancelled}"),
            r#"{"status": "captured"}"#,
        )
        .await;
    assert_eq!(refused.status(), 409);
    let after = json!({"status": "captured", "amount": 2500, "currency": "EUR"});
    assert_eq!(
        recorded(&app, "order.captured").await,
        [("api_key".into(), key.clone(), captured.clone(), Some(after))],
        "once, though asked twice"
    );
    let cancels = recorded(&app, "order.cancelled").await;
    assert_eq!(cancels.len(), 1, "{cancels:?}");
    assert_eq!(cancels[0].2, cancelled);

    let endpoint = create_endpoint(
        &app,
        "audit-endpoint",
        json!({"url": "http://127.0.0.1:9/hook"}),
    )
    .await;
    let endpoint_id = endpoint["id"].as_str().unwrap();
    let test = app
        .post(
            &format!("/v1/webhook-endpoints/{endpoint_id}/test"),
            Some("audit-test"),
            r#"{"event_type": "order.created"}"#,
        )
        .await;
    assert_eq!(test.status(), 200);
    let event_id = json(test).await["id"].as_str().unwrap().to_owned();
    let sent = recorded(&app, "webhook_endpoint.test_sent").await;
    assert_eq!(sent.len(), 1, "{sent:?}");
    assert_eq!(sent[0].2, endpoint_id);
    assert_eq!(sent[0].3.as_ref().unwrap()["event_id"], event_id.as_str());

    let recover = app
        .post(
            &format!("/v1/webhook-endpoints/{endpoint_id}/recover"),
            Some("audit-recover"),
            r#"{"since": "2020-01-01T00:00:00Z"}"#,
        )
        .await;
    assert_eq!(recover.status(), 200);
    let recovered = recorded(&app, "webhook_endpoint.recovered").await;
    assert_eq!(recovered.len(), 1, "{recovered:?}");
    assert_eq!(recovered[0].3.as_ref().unwrap()["queued"], 0);

    for _ in 0..2 {
        let redeliver = app
            .post(
                &format!("/v1/events/{event_id}/redeliver"),
                Some("audit-redeliver"),
                "",
            )
            .await;
        assert_eq!(redeliver.status(), 200);
    }
    let redelivered = recorded(&app, "event.redelivered").await;
    assert_eq!(
        redelivered.len(),
        1,
        "a replay writes none: {redelivered:?}"
    );
    assert_eq!(
        (redelivered[0].0.as_str(), redelivered[0].2.as_str()),
        ("api_key", event_id.as_str())
    );
}

#[tokio::test]
async fn a_console_capture_and_a_members_run_now_are_audited_as_the_member() {
    let app = spawn_app().await;
    let owner = signed_in_as(&app, "owner@actions.test", Some(Role::Owner)).await;
    let order = new_order(&app, "audit-console-order").await;
    let page = format!("/orders/{order}");
    let (status, _) = submit_from(&app, &owner, &page, &format!("{page}/capture"), &[]).await;
    assert_eq!(status, 303);
    let captured = recorded(&app, "order.captured").await;
    assert_eq!(captured.len(), 1, "{captured:?}");
    assert_eq!(
        (captured[0].0.as_str(), captured[0].1.as_str()),
        ("user", "owner@actions.test")
    );

    let today = chrono::Utc::now().date_naive().to_string();
    let fields = [
        ("idempotency_key", "audit-run-now"),
        ("date", today.as_str()),
    ];
    for _ in 0..2 {
        let (status, location) = submit_from(
            &app,
            &owner,
            "/reconciliation",
            "/reconciliation/run",
            &fields,
        )
        .await;
        assert_eq!(status, 303);
        assert!(location.starts_with("/reconciliation/rec_"), "{location}");
    }
    let started = recorded(&app, "reconciliation.run_started").await;
    assert_eq!(started.len(), 1, "one run, one entry: {started:?}");
    assert_eq!(started[0].1, "owner@actions.test");
    assert!(started[0].2.starts_with("rec_"));
    assert_eq!(started[0].3.as_ref().unwrap()["date"], today.as_str());
}
