//! What every request passes through: a request id (the server's own, `req_…`, answered in
//! `X-Request-Id`; an `X-Request-Id` the client sent is kept beside it), a tracing span carrying
//! both, and the request counters and latency histogram; and what the API
//! and console requests pass through: admission control.

use std::sync::Arc;
use std::time::{Duration, Instant};

use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::http::{HeaderName, HeaderValue};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tracing::Instrument;
use uuid::Uuid;

const REQUEST_ID: HeaderName = HeaderName::from_static("x-request-id");

/// The id of the request being served, for logs and structured events.
#[derive(Debug, Clone)]
pub struct RequestId(pub String);

/// The `X-Request-Id` the client sent, if any (at most 128 bytes).
#[derive(Debug, Clone)]
pub struct ClientRequestId(pub String);

impl<S: Send + Sync> FromRequestParts<S> for RequestId {
    type Rejection = std::convert::Infallible;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        Ok(parts
            .extensions
            .get::<RequestId>()
            .cloned()
            .unwrap_or_else(|| RequestId(Uuid::new_v4().to_string())))
    }
}

pub async fn observe(mut request: Request, next: Next) -> Response {
    let request_id = crate::ids::new_id("req");
    let client_request_id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|value| value.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= 128)
        .map(str::to_owned);
    request
        .extensions_mut()
        .insert(RequestId(request_id.clone()));
    if let Some(id) = &client_request_id {
        request.extensions_mut().insert(ClientRequestId(id.clone()));
    }
    let method = request.method().to_string();
    let route = request
        .extensions()
        .get::<MatchedPath>()
        .map_or("unmatched", |path| path.as_str())
        .to_owned();
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        client_request_id = client_request_id.as_deref(),
        method = %method,
        route = %route,
        merchant_id = tracing::field::Empty,
        idempotency_key = tracing::field::Empty,
    );
    let started = Instant::now();
    let mut response = next.run(request).instrument(span.clone()).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = response.status().as_u16();
    metrics::counter!("kaadxpay_http_requests_total",
        "method" => method.clone(), "route" => route.clone(), "status" => status.to_string())
    .increment(1);
    metrics::histogram!("kaadxpay_http_request_duration_seconds", "method" => method, "route" => route)
        .record(seconds);
    span.in_scope(|| tracing::info!(status, latency_ms = seconds * 1000.0, "request served"));
    if let Ok(value) = HeaderValue::from_str(&request_id) {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    response
}

/// Admission control: at most a fixed number of requests are served at once by this process,
/// and a fixed number more may wait, each at most `wait`, for a turn; beyond that the excess is
/// answered `503` with `Retry-After` at once. A burst is absorbed, an overload is refused fast
/// instead of queued without bound. Cloned into every route, the semaphores are shared by all.
#[derive(Clone)]
pub struct Admission {
    serving: Arc<Semaphore>,
    waiting: Arc<Semaphore>,
    wait: Duration,
}

impl Admission {
    pub fn new(max_in_flight: usize, max_waiting: usize, wait: Duration) -> Self {
        Self {
            serving: Arc::new(Semaphore::new(max_in_flight)),
            waiting: Arc::new(Semaphore::new(max_waiting)),
            wait,
        }
    }

    /// A turn: at once if one is free, else after waiting in line if the line has room.
    async fn turn(&self) -> Option<OwnedSemaphorePermit> {
        if let Ok(turn) = self.serving.clone().try_acquire_owned() {
            return Some(turn);
        }
        let _in_line = self.waiting.clone().try_acquire_owned().ok()?;
        tokio::time::timeout(self.wait, self.serving.clone().acquire_owned())
            .await
            .ok()?
            .ok()
    }
}

pub async fn admit(State(admission): State<Admission>, request: Request, next: Next) -> Response {
    match admission.turn().await {
        Some(_serving) => next.run(request).await,
        None => {
            metrics::counter!("kaadxpay_http_requests_shed_total").increment(1);
            crate::error::Error::ServiceUnavailable.into_response()
        }
    }
}
