//! What the webhook tests share: an app whose own dispatcher stays idle (the tests step theirs
//! with [`super::TestApp::dispatcher`] and [`super::TestApp::drain`]), endpoints made over HTTP
//! and their secrets as stored (sealed), and a local endpoint that records every delivery.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU16, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use serde_json::Value;

use super::{json, TestApp};

/// The in-process app's own dispatcher stays idle: the tests step theirs.
pub const IDLE_WORKER: [&str; 2] = ["--webhook-interval", "1h"];

/// The order the webhook tests create, to raise `order.created`.
pub const ORDER: &str = r#"{"amount": 1200, "currency": "EUR"}"#;

/// Creates an endpoint over HTTP; returns it as answered (with its secret).
pub async fn create_endpoint(app: &TestApp, key: &str, body: Value) -> Value {
    let response = app
        .post("/v1/webhook-endpoints", Some(key), &body.to_string())
        .await;
    let status = response.status();
    let endpoint = json(response).await;
    assert_eq!(status, 201, "{endpoint}");
    endpoint
}

/// `PATCH /v1/webhook-endpoints/{endpoint_id}` with `body` as the app's merchant: the status and the answer.
pub async fn patch(app: &TestApp, endpoint_id: &str, body: Value) -> (u16, Value) {
    let response = app
        .client
        .patch(format!(
            "{}/v1/webhook-endpoints/{endpoint_id}",
            app.base_url
        ))
        .bearer_auth(&app.merchant.api_key)
        .header("content-type", "application/json")
        .body(body.to_string())
        .send()
        .await
        .unwrap();
    let status = response.status().as_u16();
    (status, json(response).await)
}

/// The secret of the app's endpoint (its only one when `endpoint_id` is `None`), opened from
/// its seal with the tests' key.
pub async fn stored_secret(app: &TestApp, endpoint_id: Option<&str>) -> String {
    let (id, sealed): (String, Vec<u8>) = sqlx::query_as(
        "SELECT id, secret_sealed FROM webhook_endpoints WHERE $1::text IS NULL OR id = $1",
    )
    .bind(endpoint_id)
    .fetch_one(&app.pool)
    .await
    .unwrap();
    String::from_utf8(sealer().open(&sealed, &id).unwrap()).unwrap()
}

/// A new secret for the endpoint `endpoint_id`, sealed as the server stores it.
pub fn new_sealed_secret(endpoint_id: &str) -> Vec<u8> {
    let secret = server::webhooks::signature::new_secret();
    server::webhooks::secrets::seal(&sealer(), endpoint_id, &secret)
}

/// What seals secrets under the tests' key.
fn sealer() -> server::platform::sealing::Sealer {
    let settings = super::settings(&["--secrets-key", super::TEST_SECRETS_KEY]);
    server::service::components::sealer(&settings).unwrap()
}

/// A request the receiver got.
#[derive(Clone)]
pub struct Received {
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl Received {
    /// The header `name`, if the request had it.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|value| value.to_str().unwrap())
    }

    /// The body, as JSON.
    pub fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A local endpoint that records every `POST` (to `/hooks`, its URL, or any other path) and
/// answers the planned statuses, then the status of [`Receiver::answer`] (`200` until it is
/// called). A `429` comes with `Retry-After: 3600`.
#[derive(Clone)]
pub struct Receiver {
    pub url: String,
    pub port: u16,
    received: Arc<Mutex<Vec<Received>>>,
    plan: Arc<Mutex<VecDeque<u16>>>,
    status: Arc<AtomicU16>,
}

impl Receiver {
    pub async fn start(plan: &[u16]) -> Self {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let receiver = Self {
            url: format!("http://127.0.0.1:{port}/hooks"),
            port,
            received: Arc::default(),
            plan: Arc::new(Mutex::new(plan.iter().copied().collect())),
            status: Arc::new(AtomicU16::new(200)),
        };
        let router = axum::Router::new()
            .fallback(axum::routing::post(record))
            .with_state(receiver.clone());
        tokio::spawn(async move { axum::serve(listener, router).await.unwrap() });
        receiver
    }

    /// From now on, once the plan is spent, answers `status`.
    pub fn answer(&self, status: u16) {
        self.status.store(status, Ordering::SeqCst);
    }

    pub fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// Waits (up to 20 s) until it has `requests` requests; returns them all.
    pub async fn wait_for(&self, requests: usize) -> Vec<Received> {
        let deadline = Instant::now() + Duration::from_secs(20);
        while self.received.lock().unwrap().len() < requests {
            assert!(
                Instant::now() < deadline,
                "the receiver got fewer than {requests} requests"
            );
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
        self.received()
    }
}

async fn record(
    State(receiver): State<Receiver>,
    headers: HeaderMap,
    body: Bytes,
) -> (StatusCode, [(&'static str, &'static str); 1]) {
    receiver
        .received
        .lock()
        .unwrap()
        .push(Received { headers, body });
    let planned = receiver.plan.lock().unwrap().pop_front();
    let status = planned.unwrap_or_else(|| receiver.status.load(Ordering::SeqCst));
    let status = StatusCode::from_u16(status).unwrap();
    let retry_after = if status == StatusCode::TOO_MANY_REQUESTS {
        "3600"
    } else {
        "0"
    };
    (status, [("retry-after", retry_after)])
}
