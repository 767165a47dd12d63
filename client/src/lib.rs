//! The Kaadxpay client a merchant should use: every call is retried, with the same
//! `Idempotency-Key` and the same body bytes, until the service gives a definitive answer.
//!
//! Retried: timeouts, connection errors, and every answer whose `Kaadxpay-Should-Retry` header
//! says `true` (API.md §14: `408`, `409 idempotency_request_in_progress`, `5xx`); an answer
//! without the header (one a proxy made) is retried on that same list. A `Retry-After` is
//! honoured (capped); otherwise the wait doubles from [`RetryPolicy::initial_backoff`] up to
//! [`RetryPolicy::max_backoff`], with jitter. Any other answer is definitive, including `4xx`
//! business answers such as `402 insufficient_funds` or `409 invalid_state_transition`.
//!
//! A `POST` is keyed by the caller ([`Client::post`]) or, like the official SDKs do, by the
//! client ([`Client::post_fresh`]: a UUIDv4 made once for the call and sent on every retry).
//!
//! Every attempt is reported ([`Attempt`]: when, how long, what came back), so a caller can
//! count retries and measure how long the service was failing.

mod attempt;

use std::time::{Duration, Instant, SystemTime};

use rand::Rng;
use reqwest::header::{HeaderMap, RETRY_AFTER};
use reqwest::{Method, StatusCode};
use serde_json::Value;

pub use attempt::{Attempt, AttemptResult};

/// How a [`Client`] retries.
#[derive(Debug, Clone)]
pub struct RetryPolicy {
    /// One attempt that takes longer than this counts as a timeout and is retried.
    pub attempt_timeout: Duration,
    /// The first wait without `Retry-After`; it doubles on each retry.
    pub initial_backoff: Duration,
    /// The longest wait between attempts, `Retry-After` included.
    pub max_backoff: Duration,
    /// After this long without a definitive answer, the call gives up ([`GaveUp`]).
    pub give_up_after: Duration,
    /// At most this many retries after the first attempt (`None`: until `give_up_after`);
    /// `Some(0)` turns retrying off.
    pub max_retries: Option<usize>,
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempt_timeout: Duration::from_secs(10),
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            give_up_after: Duration::from_secs(300),
            max_retries: None,
        }
    }
}

/// A definitive answer, with every attempt it took (the last one is the answer).
#[derive(Debug, Clone)]
pub struct Answer {
    pub status: StatusCode,
    /// The JSON body (`Value::Null` when the body was empty or not JSON).
    pub body: Value,
    /// `Idempotent-Replayed: true`: the answer is the stored answer of an earlier attempt.
    pub replayed: bool,
    /// The `Idempotency-Key` every attempt sent (the caller's or the client's), if any.
    pub idempotency_key: Option<String>,
    /// The answer's `X-Request-Id`.
    pub request_id: Option<String>,
    pub attempts: Vec<Attempt>,
}

impl Answer {
    /// Attempts beyond the first.
    pub fn retries(&self) -> usize {
        self.attempts.len().saturating_sub(1)
    }
}

/// No definitive answer within [`RetryPolicy::give_up_after`] or [`RetryPolicy::max_retries`]:
/// the call's effect is unknown, and the same call (same key, same body) may be made again
/// later. The last attempt says what came back last (an answer such as a `503`, or none).
#[derive(Debug, Clone)]
pub struct GaveUp {
    /// The key every attempt sent, to make the same call again with.
    pub idempotency_key: Option<String>,
    pub attempts: Vec<Attempt>,
}

impl std::fmt::Display for GaveUp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let last = self.attempts.last().map(|attempt| &attempt.result);
        write!(
            f,
            "no definitive answer after {} attempts (last: {last:?})",
            self.attempts.len()
        )
    }
}

impl std::error::Error for GaveUp {}

/// How long an idle connection is kept for the next request.
const IDLE_CONNECTION_KEPT: Duration = Duration::from_secs(30);

/// A merchant's connection to Kaadxpay.
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base_url: String,
    api_key: String,
    policy: RetryPolicy,
}

impl Client {
    /// A client for the service at `base_url` (e.g. `https://api.kaadxpay.example`) with the
    /// merchant's `api_key`.
    pub fn new(base_url: &str, api_key: &str, policy: RetryPolicy) -> Self {
        let http = reqwest::Client::builder()
            .timeout(policy.attempt_timeout)
            // A connection idle longer than the load balancer keeps it (HAProxy: 60 s, as
            // deploy/haproxy.cfg has it) may be closed just as a request is sent on it, which
            // the client sees as a connection lost: drop idle ones well before.
            .pool_idle_timeout(IDLE_CONNECTION_KEPT)
            .build()
            .expect("an HTTP client builds");
        Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
            api_key: api_key.to_owned(),
            policy,
        }
    }

    /// `POST path` with the caller's `Idempotency-Key: key` and `body`, the same on every
    /// attempt.
    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Result<Answer, GaveUp> {
        self.call(Method::POST, path, Some(key), Some(body)).await
    }

    /// `POST path` with `body`, keyed by the client: a UUIDv4 made once for this call and sent
    /// on every attempt of it ([`Answer::idempotency_key`], [`GaveUp::idempotency_key`]).
    pub async fn post_fresh(&self, path: &str, body: &Value) -> Result<Answer, GaveUp> {
        let key = uuid::Uuid::new_v4().to_string();
        self.call(Method::POST, path, Some(&key), Some(body)).await
    }

    /// `PUT path` with `body` (naturally idempotent: no key needed).
    pub async fn put(&self, path: &str, body: &Value) -> Result<Answer, GaveUp> {
        self.call(Method::PUT, path, None, Some(body)).await
    }

    /// `GET path`.
    pub async fn get(&self, path: &str) -> Result<Answer, GaveUp> {
        self.call(Method::GET, path, None, None).await
    }

    async fn call(
        &self,
        method: Method,
        path: &str,
        key: Option<&str>,
        body: Option<&Value>,
    ) -> Result<Answer, GaveUp> {
        let url = format!("{}{path}", self.base_url);
        let bytes = body.map(|body| serde_json::to_vec(body).expect("a JSON value serialises"));
        let deadline = Instant::now() + self.policy.give_up_after;
        let mut attempts = Vec::new();
        let mut backoff = self.policy.initial_backoff;
        loop {
            let mut request = self
                .http
                .request(method.clone(), &url)
                .bearer_auth(&self.api_key);
            if let Some(key) = key {
                request = request.header("idempotency-key", key);
            }
            if let Some(bytes) = &bytes {
                request = request
                    .header("content-type", "application/json")
                    .body(bytes.clone());
            }
            let started_at = SystemTime::now();
            let sent = request.send().await;
            let (result, answer) = match sent {
                Ok(response) => {
                    let status = response.status();
                    let headers = response.headers().clone();
                    match response.bytes().await {
                        Ok(body) => {
                            let body: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
                            let result = AttemptResult::Answered {
                                status: status.as_u16(),
                                code: body["error"]["code"].as_str().map(str::to_owned),
                                retry_after: retry_after(&headers),
                                should_retry: should_retry(&headers),
                            };
                            (result, Some((status, headers, body)))
                        }
                        Err(err) => (AttemptResult::from_error(&err), None),
                    }
                }
                Err(err) => (AttemptResult::from_error(&err), None),
            };
            let retry_after = result.retry_after();
            let retryable = result.is_retryable();
            attempts.push(Attempt {
                started_at,
                finished_at: SystemTime::now(),
                result,
            });
            let idempotency_key = key.map(str::to_owned);
            if !retryable {
                let (status, headers, body) = answer.expect("only an answer is definitive");
                let header = |name: &str| {
                    headers
                        .get(name)
                        .and_then(|value| value.to_str().ok())
                        .map(str::to_owned)
                };
                return Ok(Answer {
                    status,
                    body,
                    replayed: header("idempotent-replayed").as_deref() == Some("true"),
                    idempotency_key,
                    request_id: header("x-request-id"),
                    attempts,
                });
            }
            let wait = match retry_after {
                Some(delay) => delay.min(self.policy.max_backoff),
                None => jittered(backoff),
            };
            backoff = (backoff * 2).min(self.policy.max_backoff);
            let retries_left = self
                .policy
                .max_retries
                .is_none_or(|most| attempts.len() <= most);
            if !retries_left || Instant::now() + wait > deadline {
                return Err(GaveUp {
                    idempotency_key,
                    attempts,
                });
            }
            tokio::time::sleep(wait).await;
        }
    }
}

/// `Retry-After` in seconds (the service never sends an HTTP date).
fn retry_after(headers: &HeaderMap) -> Option<Duration> {
    let seconds: u64 = headers
        .get(RETRY_AFTER)?
        .to_str()
        .ok()?
        .trim()
        .parse()
        .ok()?;
    Some(Duration::from_secs(seconds))
}

/// `Kaadxpay-Should-Retry` (API.md §14), when the answer has it.
fn should_retry(headers: &HeaderMap) -> Option<bool> {
    match headers.get("kaadxpay-should-retry")?.to_str().ok()?.trim() {
        "true" => Some(true),
        "false" => Some(false),
        _ => None,
    }
}

/// Between half and all of `delay`, so that clients that failed together do not retry together.
fn jittered(delay: Duration) -> Duration {
    delay.mul_f64(rand::thread_rng().gen_range(0.5..=1.0))
}

#[cfg(test)]
mod tests;
