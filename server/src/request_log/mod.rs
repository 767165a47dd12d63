//! The request log (API.md §12): one entry per authenticated `/v1` request, with its caller,
//! route, `Idempotency-Key`, the engine's verdict, status, latency and capped bodies. It owns the
//! path from a served request to the `request_log` table, and never sits on the money's path:
//! the HTTP layer ([`crate::edge::request_log`]) hands a finished request's [`Entry`] to
//! [`RequestLog::record`], which only tries to put it in a bounded in-process buffer (full: the
//! entry is dropped and counted in `kaadxpay_request_log_dropped_total`); the [`writer`] drains
//! the buffer in batches on a connection of its own, redacting each entry ([`redact`]) on the
//! way into the rows of a binary `COPY` ([`copy`]). The table is partitioned by UTC day
//! ([`partitions`]), so that retention drops whole days. [`query`] reads it back for the API
//! (and later the console's timelines).

mod copy;
pub mod noted;
pub mod partitions;
pub mod query;
pub mod redact;
pub mod writer;

use std::net::IpAddr;
use std::time::Duration;

use axum::http::Method;
use chrono::{DateTime, Utc};
use kaadxpay_types::Verdict;
use tokio::sync::mpsc::{self, error::TrySendError};

/// How much of each body is kept.
pub const BODY_CAP: usize = 8 * 1024;

const DROPPED: &str = "kaadxpay_request_log_dropped_total";

/// The request log's settings (from the flags in `service::config::RequestLogSettings`).
#[derive(Debug, Clone)]
pub struct Settings {
    /// Whether authenticated `/v1` requests are recorded.
    pub enabled: bool,
    /// How long entries are kept; whole UTC days are dropped once all of the day is older.
    pub retention: Duration,
    /// Entries waiting for the writer; when it is full, new entries are dropped and counted.
    pub buffer: usize,
}

impl Settings {
    /// The settings that cannot work, one sentence each.
    pub fn problems(&self) -> Vec<String> {
        let mut problems = Vec::new();
        if self.retention.is_zero() {
            problems.push("KAADXPAY_REQUEST_LOG_RETENTION must be longer than zero.".to_owned());
        }
        if self.buffer == 0 {
            problems.push("KAADXPAY_REQUEST_LOG_BUFFER must be at least 1.".to_owned());
        }
        problems
    }
}

/// One served request, as the HTTP layer saw it: bodies raw and capped, nothing redacted yet.
#[derive(Debug)]
pub struct Entry {
    pub id: String,
    pub created_at: DateTime<Utc>,
    pub merchant_id: String,
    pub api_key_id: Option<String>,
    pub user_id: Option<String>,
    pub method: Method,
    /// The template with its method, e.g. `POST /v1/orders`.
    pub route: String,
    pub path: String,
    pub idempotency_key: Option<String>,
    pub verdict: Option<Verdict>,
    pub status: u16,
    pub latency: Duration,
    pub client_address: Option<IpAddr>,
    pub request_body: bytes::Bytes,
    pub response_body: bytes::Bytes,
    pub client_request_id: Option<String>,
}

/// Where entries go: the writer's buffer, or nowhere when the log is off.
#[derive(Debug, Clone)]
pub struct RequestLog {
    buffer: Option<mpsc::Sender<Entry>>,
}

impl RequestLog {
    /// The log with its buffer, and the buffer's other end for [`writer::run`]; or, switched off,
    /// a log that records nothing.
    pub fn new(settings: &Settings) -> (Self, Option<mpsc::Receiver<Entry>>) {
        if !settings.enabled {
            return (Self { buffer: None }, None);
        }
        let (sender, receiver) = mpsc::channel(settings.buffer);
        (
            Self {
                buffer: Some(sender),
            },
            Some(receiver),
        )
    }

    pub fn is_on(&self) -> bool {
        self.buffer.is_some()
    }

    /// Hands `entry` to the writer if its buffer has room, else drops and counts it; never waits.
    pub fn record(&self, entry: Entry) {
        let Some(buffer) = &self.buffer else { return };
        match buffer.try_send(entry) {
            Ok(()) => {}
            Err(TrySendError::Full(_) | TrySendError::Closed(_)) => {
                metrics::counter!(DROPPED).increment(1);
            }
        }
    }
}

/// Counts entries the writer could not store.
fn count_dropped(entries: usize) {
    metrics::counter!(DROPPED).increment(entries as u64);
}
