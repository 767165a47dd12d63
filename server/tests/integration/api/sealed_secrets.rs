//! Webhook endpoint secrets never rest in clear (API.md §11, issue 27 items 5 and 7): the
//! endpoint's secret and, after a rotation, its predecessor are sealed in `webhook_endpoints`;
//! the stored answers that showed them are sealed in the keys' records, and a replay still
//! answers the same bytes (§2); deliveries are signed with the opened secrets; and what an
//! earlier version stored in clear is sealed when `serve` starts.

use crate::common;

use serde_json::{json, Value};
use standardwebhooks::Webhook;

use common::webhooks::{Receiver, IDLE_WORKER, ORDER};
use common::{settings, spawn_app_with, TestApp, TEST_SECRETS_KEY};
use server::service::components;

/// Every place a secret could rest (the endpoints' columns, clear and sealed, and the keys'
/// records): how many hold its bytes.
async fn resting_in_clear(app: &TestApp, secret: &str) -> i64 {
    sqlx::query_scalar(
        "SELECT (SELECT count(*) FROM webhook_endpoints \
                 WHERE position($1 IN convert_to(concat(secret, previous_secret), 'UTF8') \
                                      || coalesce(secret_sealed, '') \
                                      || coalesce(previous_secret_sealed, '')) > 0) \
              + (SELECT count(*) FROM idempotency_keys WHERE position($1 IN response_body) > 0)",
    )
    .bind(secret.as_bytes())
    .fetch_one(&app.pool)
    .await
    .unwrap()
}

/// `POST path` with `key` and `body`: status, replay header and the body's bytes.
async fn post(app: &TestApp, path: &str, key: &str, body: &str) -> (u16, Option<String>, Vec<u8>) {
    let answer = app.post(path, Some(key), body).await;
    let replayed = answer
        .headers()
        .get("idempotent-replayed")
        .map(|value| value.to_str().unwrap().to_owned());
    (
        answer.status().as_u16(),
        replayed,
        answer.bytes().await.unwrap().to_vec(),
    )
}

#[tokio::test]
async fn secrets_and_the_answers_that_showed_them_are_sealed_and_replays_answer_the_same_bytes() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let body = json!({"url": receiver.url}).to_string();
    let first = post(&app, "/v1/webhook-endpoints", "sealed-create", &body).await;
    assert_eq!(first.0, 201);
    let endpoint: Value = serde_json::from_slice(&first.2).unwrap();
    let secret = endpoint["secret"].as_str().unwrap().to_owned();
    assert_eq!(
        resting_in_clear(&app, &secret).await,
        0,
        "the secret rests sealed"
    );
    let replay = post(&app, "/v1/webhook-endpoints", "sealed-create", &body).await;
    assert_eq!(replay.1.as_deref(), Some("true"));
    assert_eq!(
        (replay.0, &replay.2),
        (first.0, &first.2),
        "a replay answers the same bytes"
    );

    let rotate = format!(
        "/v1/webhook-endpoints/{}/rotate-secret",
        endpoint["id"].as_str().unwrap()
    );
    let rotated = post(&app, &rotate, "sealed-rotate", r#"{"overlap": "1h"}"#).await;
    assert_eq!(rotated.0, 200);
    let new_secret = serde_json::from_slice::<Value>(&rotated.2).unwrap()["secret"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(resting_in_clear(&app, &secret).await, 0);
    assert_eq!(resting_in_clear(&app, &new_secret).await, 0);
    let replay = post(&app, &rotate, "sealed-rotate", r#"{"overlap": "1h"}"#).await;
    assert_eq!((replay.0, &replay.2), (rotated.0, &rotated.2));

    // Deliveries are signed with both opened secrets during the overlap.
    app.create_order("sealed-order", ORDER).await;
    app.dispatcher("5s").run_once().await.unwrap();
    let got = &receiver.wait_for(1).await[0];
    for secret in [&secret, &new_secret] {
        Webhook::new(secret)
            .unwrap()
            .verify(&got.body, &got.headers)
            .expect("the signature verifies");
    }
}

#[tokio::test]
async fn secrets_an_earlier_version_stored_in_clear_are_sealed_at_start() {
    let app = spawn_app_with(&IDLE_WORKER).await;
    let receiver = Receiver::start(&[]).await;
    let clear = "whsec_QmVmb3JlIHNlYWxpbmcgY2FtZSBpbg==";
    sqlx::query(
        "INSERT INTO webhook_endpoints (id, merchant_id, url, events, secret) \
         VALUES ('whe_clear', $1, $2, '{*}', $3)",
    )
    .bind(&app.merchant.id)
    .bind(&receiver.url)
    .bind(clear)
    .execute(&app.pool)
    .await
    .unwrap();
    sqlx::query(
        "INSERT INTO idempotency_keys (merchant_id, key, endpoint, status, request_hash, \
           response_status, response_body) \
         VALUES ($1, 'clear-answer', 'POST /v1/webhook-endpoints', 'completed', '\\x00', 201, \
           convert_to($2, 'UTF8'))",
    )
    .bind(&app.merchant.id)
    .bind(json!({"id": "whe_clear", "secret": clear}).to_string())
    .execute(&app.pool)
    .await
    .unwrap();
    assert!(resting_in_clear(&app, clear).await > 0);

    let sealer = components::sealer(&settings(&["--secrets-key", TEST_SECRETS_KEY])).unwrap();
    server::webhooks::secrets::seal_stored_in_clear(&app.pool, &sealer)
        .await
        .unwrap();
    assert_eq!(resting_in_clear(&app, clear).await, 0);

    app.create_order("clear-order", ORDER).await;
    app.dispatcher("5s").run_once().await.unwrap();
    let got = &receiver.wait_for(1).await[0];
    Webhook::new(clear)
        .unwrap()
        .verify(&got.body, &got.headers)
        .expect("signed with the secret it had");
}
