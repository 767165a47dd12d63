//! What every request passes through: its entrance (the client's address resolved, a request
//! id, the server's own, `req_…`, answered in `X-Request-Id`, an `X-Request-Id` the client sent
//! kept beside it, a tracing span carrying both, the request counters and latency histogram),
//! and its deadlines (its body read in full, in time, before anything else runs, and text that
//! cannot be stored refused); and what the API and console requests pass through: admission
//! control.

use std::collections::HashMap;
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{FromRequestParts, MatchedPath, Request, State};
use axum::http::request::Parts;
use axum::http::{header, HeaderName, HeaderValue, Method};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use http_body_util::{BodyExt, LengthLimitError, Limited};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};
use tracing::Instrument;
use uuid::Uuid;

use super::client::{self, TrustedProxies};
use super::nul;
use crate::contract::error::Error;
use crate::contract::input::MAX_BODY_BYTES;

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

/// The request counter and latency histogram of each method, route and status, registered with
/// the metrics recorder once and then reused: no label is formatted, copied or hashed into a
/// registry key again on a request's path.
#[derive(Clone, Default)]
pub struct Observed(Arc<RwLock<HashMap<String, Vec<Handles>>>>);

struct Handles {
    method: Method,
    status: u16,
    requests: metrics::Counter,
    duration: metrics::Histogram,
}

/// Handles kept at most: beyond, a request of a new kind (an unknown method, say) is counted
/// through the recorder each time, as before.
const OBSERVED_KINDS: usize = 1024;

impl Observed {
    fn record(&self, method: &Method, route: &str, status: u16, seconds: f64) {
        let known = self.0.read().expect("never poisoned");
        if let Some(handles) = known.get(route).and_then(|kinds| {
            kinds
                .iter()
                .find(|kind| kind.status == status && kind.method == *method)
        }) {
            handles.requests.increment(1);
            handles.duration.record(seconds);
            return;
        }
        let kept = known.values().map(Vec::len).sum::<usize>();
        drop(known);
        let (method_label, route_label, status_label) =
            (method.to_string(), route.to_owned(), status.to_string());
        let requests = metrics::counter!("kaadxpay_http_requests_total",
            "method" => method_label.clone(), "route" => route_label.clone(), "status" => status_label.clone());
        // Per status too, so that the time of a shed `503` is not hidden among the served answers.
        let duration = metrics::histogram!("kaadxpay_http_request_duration_seconds",
            "method" => method_label, "route" => route_label, "status" => status_label);
        requests.increment(1);
        duration.record(seconds);
        if kept < OBSERVED_KINDS {
            self.0
                .write()
                .expect("never poisoned")
                .entry(route.to_owned())
                .or_default()
                .push(Handles {
                    method: method.clone(),
                    status,
                    requests,
                    duration,
                });
        }
    }
}

/// What every request passes first: its [`super::client::ClientAddress`] resolved, then
/// [observed](observe). One layer for both: each layer is a service cloned and a future boxed
/// per request.
#[derive(Clone)]
pub struct Entrance {
    pub proxies: TrustedProxies,
    pub observed: Observed,
}

pub async fn enter(State(entrance): State<Entrance>, mut request: Request, next: Next) -> Response {
    client::resolve(&entrance.proxies, &mut request);
    observe(&entrance.observed, request, next).await
}

/// The request's id, span, counters and latency around the rest of its serving.
async fn observe(observed: &Observed, mut request: Request, next: Next) -> Response {
    let request_id = kaadxpay_types::ids::new_id("req");
    let client_request_id = request
        .headers()
        .get(&REQUEST_ID)
        .and_then(|value| value.to_str().ok())
        .filter(|id| !id.is_empty() && id.len() <= 128)
        .map(str::to_owned);
    let header = HeaderValue::from_str(&request_id).ok();
    if let Some(id) = &client_request_id {
        request.extensions_mut().insert(ClientRequestId(id.clone()));
    }
    let method = request.method().clone();
    let matched = request.extensions().get::<MatchedPath>().cloned();
    let route = matched.as_ref().map_or("unmatched", MatchedPath::as_str);
    let span = tracing::info_span!(
        "request",
        request_id = %request_id,
        client_request_id = client_request_id.as_deref(),
        method = %method,
        route = %route,
        merchant_id = tracing::field::Empty,
        idempotency_key = tracing::field::Empty,
    );
    request.extensions_mut().insert(RequestId(request_id));
    let started = Instant::now();
    let mut response = next.run(request).instrument(span.clone()).await;
    let seconds = started.elapsed().as_secs_f64();
    let status = response.status().as_u16();
    observed.record(&method, route, status, seconds);
    span.in_scope(|| tracing::info!(status, latency_ms = seconds * 1000.0, "request served"));
    if let Some(value) = header {
        response.headers_mut().insert(REQUEST_ID, value);
    }
    response
}

/// The time a request has once its headers are in: to send its body, and in all.
#[derive(Clone, Copy)]
pub struct Deadlines {
    pub body: Duration,
    pub total: Duration,
}

/// Reads the body in full (at most 64 KiB: `413` above) before anything else runs, within the
/// body deadline (`408 request_timeout` after it, and the connection closed), so a slow client
/// holds no turn of admission, no database connection, nothing but its socket; refuses text
/// PostgreSQL cannot store ([`nul::refusal_of`]); then answers
/// `503` for a request still being served at the total deadline (its handler dropped, as when a
/// client goes away).
pub async fn within_deadlines(
    State(deadlines): State<Deadlines>,
    request: Request,
    next: Next,
) -> Response {
    let total = tokio::time::Instant::now() + deadlines.total;
    let (parts, body) = request.into_parts();
    let read =
        tokio::time::timeout(deadlines.body, Limited::new(body, MAX_BODY_BYTES).collect()).await;
    let body = match read {
        Ok(Ok(collected)) => collected.to_bytes(),
        Ok(Err(err)) if err.is::<LengthLimitError>() => {
            return closing(Error::RequestTooLarge(MAX_BODY_BYTES))
        }
        Ok(Err(_)) => {
            return closing(Error::invalid_body(
                "The request body could not be read in full.",
            ))
        }
        Err(_) => {
            metrics::counter!("kaadxpay_http_request_timeouts_total", "phase" => "body")
                .increment(1);
            return closing(Error::RequestTimeout);
        }
    };
    if let Some(refusal) = nul::refusal_of(&parts, &body) {
        return refusal.into_response();
    }
    let request = Request::from_parts(parts, Body::from(body));
    match tokio::time::timeout_at(total, next.run(request)).await {
        Ok(response) => response,
        Err(_) => {
            metrics::counter!("kaadxpay_http_request_timeouts_total", "phase" => "serving")
                .increment(1);
            Error::ServiceUnavailable.into_response()
        }
    }
}

/// `error`, with the connection closed after it: the rest of the body is never read.
fn closing(error: Error) -> Response {
    let mut response = error.into_response();
    response
        .headers_mut()
        .insert(header::CONNECTION, HeaderValue::from_static("close"));
    response
}

/// The routes anyone can reach without credentials, whose bodies are read before anything is
/// checked: sign-in, and the partner's webhooks (whose signature is checked over the body).
const DOOR: [&str; 2] = ["/login", "/webhooks/partner"];

/// Admission control: at most a fixed number of requests are served at once by this process
/// (about as many as the pool has connections), and a few more may wait, each a few
/// milliseconds at most, for a turn; beyond that the excess is answered `503` with
/// `Retry-After` at once. Shedding costs microseconds: a burst's jitter is absorbed, an
/// overload is refused at the door instead of queued. The [`DOOR`] routes have a small budget
/// of their own (a quarter as many turns, at least two), so that a flood of them can never take
/// a turn from the signed-in API and console. Cloned into every route, the budgets are shared
/// by all.
#[derive(Clone)]
pub struct Admission {
    signed_in: Budget,
    door: Budget,
}

impl Admission {
    pub fn new(max_in_flight: usize, max_waiting: usize, wait: Duration) -> Self {
        Self {
            signed_in: Budget::new(max_in_flight, max_waiting, wait),
            door: Budget::new((max_in_flight / 4).max(2), (max_waiting / 4).max(1), wait),
        }
    }
}

/// Turns, and a line for them.
#[derive(Clone)]
struct Budget {
    serving: Arc<Semaphore>,
    waiting: Arc<Semaphore>,
    wait: Duration,
}

impl Budget {
    fn new(max_in_flight: usize, max_waiting: usize, wait: Duration) -> Self {
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
    let (budget, name) = if DOOR.contains(&request.uri().path()) {
        (&admission.door, "door")
    } else {
        (&admission.signed_in, "signed_in")
    };
    match budget.turn().await {
        Some(_serving) => next.run(request).await,
        None => {
            metrics::counter!("kaadxpay_http_requests_shed_total", "budget" => name).increment(1);
            Error::ServiceUnavailable.into_response()
        }
    }
}
