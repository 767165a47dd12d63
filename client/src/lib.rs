//! The Kaadxpay client a merchant should use: every call is retried, with the same
//! `Idempotency-Key` and the same body bytes, until the service gives a definitive answer.
//!
//! Retried: timeouts, connection errors, `5xx`, `429`, and `409 idempotency_request_in_progress`
//! (the first attempt is still running). A `Retry-After` is honoured (capped); otherwise the
//! wait doubles from [`RetryPolicy::initial_backoff`] up to [`RetryPolicy::max_backoff`], with
//! jitter. Any other answer is definitive, including `4xx` business answers such as
//! `402 insufficient_funds` or `409 invalid_state_transition`.
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
}

impl Default for RetryPolicy {
    fn default() -> Self {
        Self {
            attempt_timeout: Duration::from_secs(10),
            initial_backoff: Duration::from_millis(100),
            max_backoff: Duration::from_secs(5),
            give_up_after: Duration::from_secs(300),
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
    pub attempts: Vec<Attempt>,
}

impl Answer {
    /// Attempts beyond the first.
    pub fn retries(&self) -> usize {
        self.attempts.len().saturating_sub(1)
    }
}

/// No definitive answer within [`RetryPolicy::give_up_after`]: the call's effect is unknown,
/// and the same call (same key, same body) may be made again later.
#[derive(Debug, Clone)]
pub struct GaveUp {
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

    /// `POST path` with `Idempotency-Key: key` and `body`, the same on every attempt.
    pub async fn post(&self, path: &str, key: &str, body: &Value) -> Result<Answer, GaveUp> {
        self.call(Method::POST, path, Some(key), Some(body)).await
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
            if !retryable {
                let (status, headers, body) = answer.expect("only an answer is definitive");
                return Ok(Answer {
                    status,
                    body,
                    replayed: headers
                        .get("idempotent-replayed")
                        .is_some_and(|value| value == "true"),
                    attempts,
                });
            }
            let wait = match retry_after {
                Some(delay) => delay.min(self.policy.max_backoff),
                None => jittered(backoff),
            };
            backoff = (backoff * 2).min(self.policy.max_backoff);
            if Instant::now() + wait > deadline {
                return Err(GaveUp { attempts });
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

/// Between half and all of `delay`, so that clients that failed together do not retry together.
fn jittered(delay: Duration) -> Duration {
    delay.mul_f64(rand::thread_rng().gen_range(0.5..=1.0))
}

#[cfg(test)]
mod tests;
