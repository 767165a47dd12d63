//! Live and test (API.md §1, issue 27 item 7): a deployment in live mode makes `sk_live_` keys
//! and refuses `sk_test_` ones with `401 unauthorized`; one in test mode, the other way round.

use crate::common;

use reqwest::StatusCode;
use serde_json::Value;
use server::accounts::auth::Mode;

use common::{create_merchant_in, error_code, json, spawn_app_with, ServerProcess, TestApp};

/// `GET /v1/balance` with `api_key`: its status and body.
async fn balance(app: &TestApp, api_key: &str) -> (StatusCode, Value) {
    let answer = app
        .client
        .get(format!("{}/v1/balance", app.base_url))
        .bearer_auth(api_key)
        .send()
        .await
        .unwrap();
    (answer.status(), json(answer).await)
}

/// A new key's secret, made with the app's merchant's key.
async fn new_key_secret(app: &TestApp) -> String {
    let answer = app
        .post("/v1/api-keys", Some("mode-key"), r#"{"name": "Another"}"#)
        .await;
    assert_eq!(answer.status(), StatusCode::CREATED);
    json(answer).await["secret"].as_str().unwrap().to_owned()
}

#[tokio::test]
async fn live_mode_makes_live_keys_and_refuses_test_keys() {
    let partner = ServerProcess::partner_sim(&[]).await;
    let app = spawn_app_with(&[
        "--deployment-mode",
        "live",
        "--partner-url",
        &partner.base_url,
    ])
    .await;
    assert!(
        app.merchant.api_key.starts_with("sk_live_"),
        "{}",
        app.merchant.api_key
    );
    assert_eq!(balance(&app, &app.merchant.api_key).await.0, StatusCode::OK);
    assert!(new_key_secret(&app).await.starts_with("sk_live_"));

    let test_key = create_merchant_in(&app.pool, "Test keys", Mode::Test).await;
    let (status, body) = balance(&app, &test_key.api_key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&body), "unauthorized");
}

#[tokio::test]
async fn test_mode_makes_test_keys_and_refuses_live_keys() {
    let app = spawn_app_with(&[]).await;
    assert!(app.merchant.api_key.starts_with("sk_test_"));
    assert!(new_key_secret(&app).await.starts_with("sk_test_"));
    let live_key = create_merchant_in(&app.pool, "Live keys", Mode::Live).await;
    let (status, body) = balance(&app, &live_key.api_key).await;
    assert_eq!(status, StatusCode::UNAUTHORIZED);
    assert_eq!(error_code(&body), "unauthorized");
}
