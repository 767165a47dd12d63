//! `Kaadxpay-Should-Retry` on every error answer (API.md §14): `false` for each answer about the
//! request itself, a stored refusal's replay included. (`true` is asserted where the faults are
//! made: `408` in `faults::slow_clients`, `409 idempotency_request_in_progress` and `500` in
//! `faults::failpoints`, `503` in `faults::overload`.)

use crate::common;

use reqwest::Response;

use common::{error_code, json, payout_body, spawn_app, IBAN};

/// Asserts that `response` is the error `status` `code` and tells the client not to retry.
async fn assert_final(response: Response, status: u16, code: &str) {
    assert_eq!(response.status(), status);
    assert_eq!(
        response.headers()["kaadxpay-should-retry"],
        "false",
        "{status} {code}"
    );
    assert_eq!(error_code(&json(response).await), code);
}

#[tokio::test]
async fn every_refusal_of_the_request_itself_says_not_to_retry() {
    let app = spawn_app().await;
    let url = |path: &str| format!("{}{path}", app.base_url);

    let no_key = app.client.get(url("/v1/orders")).send().await.unwrap();
    assert_final(no_key, 401, "unauthorized").await;
    let bad_amount = app
        .post(
            "/v1/orders",
            Some("bad"),
            r#"{"amount": 0, "currency": "EUR"}"#,
        )
        .await;
    assert_final(bad_amount, 400, "invalid_request").await;
    let missing_key = app
        .post("/v1/orders", None, r#"{"amount": 1, "currency": "EUR"}"#)
        .await;
    assert_final(missing_key, 400, "idempotency_key_missing").await;
    assert_final(
        app.get("/v1/orders/ord_none").await,
        404,
        "resource_missing",
    )
    .await;
    let patch = app
        .client
        .patch(url("/v1/orders"))
        .bearer_auth(&app.merchant.api_key);
    assert_final(patch.send().await.unwrap(), 405, "method_not_allowed").await;
    let large = "x".repeat(70 * 1024);
    let too_large = app.post("/v1/orders", Some("large"), &large).await;
    assert_final(too_large, 413, "request_too_large").await;

    let payout = payout_body(600, IBAN).to_string();
    let short = app.post("/v1/payouts", Some("short"), &payout).await;
    assert_final(short, 402, "insufficient_funds").await;
    let replayed = app.post("/v1/payouts", Some("short"), &payout).await;
    assert_eq!(replayed.headers()["idempotent-replayed"], "true");
    assert_final(replayed, 402, "insufficient_funds").await;
    let other = payout_body(700, IBAN).to_string();
    let reused = app.post("/v1/payouts", Some("short"), &other).await;
    assert_final(reused, 422, "idempotency_key_reused").await;

    let order = app
        .create_order("order", r#"{"amount": 100, "currency": "EUR"}"#)
        .await;
    let path = format!("/v1/orders/{}", order["id"].as_str().unwrap());
    assert_eq!(
        app.put(&path, r#"{"status": "cancelled"}"#).await.status(),
        200
    );
    let capture = app.put(&path, r#"{"status": "captured"}"#).await;
    assert_final(capture, 409, "invalid_state_transition").await;

    let read_only = json(
        app.post(
            "/v1/api-keys",
            Some("read-only"),
            r#"{"name": "Dashboard", "access": "read_only"}"#,
        )
        .await,
    )
    .await;
    let write = app
        .client
        .post(url("/v1/orders"))
        .bearer_auth(read_only["secret"].as_str().unwrap())
        .header("idempotency-key", "write")
        .body(r#"{"amount": 1, "currency": "EUR"}"#)
        .send()
        .await
        .unwrap();
    assert_final(write, 403, "forbidden").await;
}
