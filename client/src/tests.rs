//! The retry loop against a small scripted server.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::Router;
use serde_json::json;

use super::*;

/// What the server received: each attempt's key and body.
type Seen = Arc<Mutex<Vec<(String, String)>>>;
/// One scripted answer: status, Retry-After, Kaadxpay-Should-Retry and body.
type Scripted = (
    u16,
    Option<&'static str>,
    Option<&'static str>,
    &'static str,
);
/// What the server answers, in turn.
type Script = Arc<Vec<Scripted>>;

/// Serves `answers` in turn to `POST /v1/orders` (the last one for ever).
async fn scripted(answers: Vec<Scripted>) -> (String, Seen) {
    let seen: Seen = Arc::default();
    let state = (seen.clone(), Arc::new(answers));
    let app = Router::new()
        .route(
            "/v1/orders",
            post(
                |State((seen, answers)): State<(Seen, Script)>,
                 headers: HeaderMap,
                 body: String| async move {
                    let key = headers["idempotency-key"].to_str().unwrap().to_owned();
                    let mut seen = seen.lock().unwrap();
                    seen.push((key, body));
                    let (status, retry_after, should_retry, body) =
                        answers[(seen.len() - 1).min(answers.len() - 1)];
                    let mut response: Response =
                        (StatusCode::from_u16(status).unwrap(), body).into_response();
                    if let Some(seconds) = retry_after {
                        response
                            .headers_mut()
                            .insert("retry-after", seconds.parse().unwrap());
                    }
                    if let Some(verdict) = should_retry {
                        response
                            .headers_mut()
                            .insert("kaadxpay-should-retry", verdict.parse().unwrap());
                    }
                    response
                },
            ),
        )
        .with_state(state);
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, seen)
}

fn policy() -> RetryPolicy {
    RetryPolicy {
        attempt_timeout: Duration::from_secs(5),
        initial_backoff: Duration::from_millis(10),
        max_backoff: Duration::from_millis(200),
        give_up_after: Duration::from_secs(10),
        max_retries: None,
    }
}

#[tokio::test]
async fn retries_with_the_same_key_and_body_until_a_definitive_answer() {
    let unavailable = r#"{"error": {"code": "service_unavailable", "message": "m"}}"#;
    let in_progress = r#"{"error": {"code": "idempotency_request_in_progress", "message": "m"}}"#;
    let (url, seen) = scripted(vec![
        (503, Some("1"), Some("true"), unavailable),
        (500, None, None, "{}"),
        (409, Some("1"), Some("true"), in_progress),
        (201, None, None, r#"{"id": "ord_1"}"#),
    ])
    .await;
    let client = Client::new(&url, "sk_test", policy());
    let body = json!({"amount": 100, "currency": "EUR"});
    let answer = client.post("/v1/orders", "key-1", &body).await.unwrap();

    assert_eq!(answer.status, StatusCode::CREATED);
    assert_eq!(answer.body["id"], "ord_1");
    assert_eq!(answer.retries(), 3);
    let seen = seen.lock().unwrap();
    assert_eq!(seen.len(), 4);
    assert!(seen.iter().all(|attempt| *attempt == seen[0]));
    assert_eq!(seen[0].0, "key-1");
    assert_eq!(
        answer.attempts[0].result,
        AttemptResult::Answered {
            status: 503,
            code: Some("service_unavailable".into()),
            retry_after: Some(Duration::from_secs(1)),
            should_retry: Some(true),
        }
    );
    // Retry-After (1 s) is capped by max_backoff (200 ms) but still waited for.
    let waited = answer.attempts[1]
        .started_at
        .duration_since(answer.attempts[0].finished_at)
        .unwrap();
    assert!(waited >= Duration::from_millis(200), "{waited:?}");
}

#[tokio::test]
async fn business_answers_are_definitive() {
    let conflict = r#"{"error": {"code": "invalid_state_transition", "message": "m"}}"#;
    let (url, seen) = scripted(vec![(409, None, Some("false"), conflict)]).await;
    let client = Client::new(&url, "sk_test", policy());
    let answer = client
        .post("/v1/orders", "key-2", &json!({}))
        .await
        .unwrap();
    assert_eq!(answer.status, StatusCode::CONFLICT);
    assert_eq!(answer.retries(), 0);
    assert_eq!(seen.lock().unwrap().len(), 1);
}

#[tokio::test]
async fn gives_up_after_its_deadline_reporting_every_attempt() {
    // Nothing listens on this port once the listener is dropped.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}", listener.local_addr().unwrap());
    drop(listener);
    let client = Client::new(
        &url,
        "sk_test",
        RetryPolicy {
            give_up_after: Duration::from_millis(300),
            ..policy()
        },
    );
    let gave_up = client.get("/v1/balance").await.unwrap_err();
    assert!(gave_up.attempts.len() >= 2, "{gave_up}");
    assert!(gave_up
        .attempts
        .iter()
        .all(|attempt| matches!(attempt.result, AttemptResult::Connection(_))));
}

#[tokio::test]
async fn the_should_retry_header_decides_over_the_status() {
    let unavailable = r#"{"error": {"code": "service_unavailable", "message": "m"}}"#;
    let conflict = r#"{"error": {"code": "invalid_state_transition", "message": "m"}}"#;
    // A 503 the service says not to retry is definitive.
    let (url, seen) = scripted(vec![(503, None, Some("false"), unavailable)]).await;
    let client = Client::new(&url, "sk_test", policy());
    let answer = client.post("/v1/orders", "k", &json!({})).await.unwrap();
    assert_eq!((answer.status.as_u16(), answer.retries()), (503, 0));
    assert_eq!(seen.lock().unwrap().len(), 1);
    // A 409 it says to retry is retried.
    let (url, seen) = scripted(vec![
        (409, None, Some("true"), conflict),
        (201, None, None, r#"{"id": "ord_1"}"#),
    ])
    .await;
    let client = Client::new(&url, "sk_test", policy());
    let answer = client.post("/v1/orders", "k", &json!({})).await.unwrap();
    assert_eq!((answer.status.as_u16(), answer.retries()), (201, 1));
    assert_eq!(seen.lock().unwrap().len(), 2);
}

#[tokio::test]
async fn a_post_without_a_key_gets_one_key_for_all_its_attempts() {
    let (url, seen) = scripted(vec![
        (500, None, Some("true"), "{}"),
        (502, None, None, "{}"),
        (201, None, None, r#"{"id": "ord_1"}"#),
    ])
    .await;
    let client = Client::new(&url, "sk_test", policy());
    let answer = client
        .post_fresh("/v1/orders", &json!({"amount": 1}))
        .await
        .unwrap();
    let sent = seen.lock().unwrap().clone();
    assert_eq!(sent.len(), 3);
    assert!(sent.iter().all(|attempt| *attempt == sent[0]));
    let key = answer.idempotency_key.expect("the key it sent");
    assert_eq!(sent[0].0, key);
    assert_eq!(uuid::Uuid::parse_str(&key).unwrap().get_version_num(), 4);
    // Another call, another key.
    let other = client
        .post_fresh("/v1/orders", &json!({"amount": 1}))
        .await
        .unwrap();
    assert_ne!(other.idempotency_key.unwrap(), key);
}

#[tokio::test]
async fn max_retries_bounds_the_attempts_and_zero_turns_retrying_off() {
    let unavailable = r#"{"error": {"code": "service_unavailable", "message": "m"}}"#;
    let (url, seen) = scripted(vec![(503, None, Some("true"), unavailable)]).await;
    for (most, attempts) in [(0, 1), (2, 3)] {
        seen.lock().unwrap().clear();
        let client = Client::new(
            &url,
            "sk_test",
            RetryPolicy {
                max_retries: Some(most),
                ..policy()
            },
        );
        let gave_up = client
            .post("/v1/orders", "k", &json!({}))
            .await
            .unwrap_err();
        assert_eq!(gave_up.attempts.len(), attempts);
        assert_eq!(gave_up.idempotency_key.as_deref(), Some("k"));
        assert_eq!(seen.lock().unwrap().len(), attempts);
    }
}
