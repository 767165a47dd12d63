//! Our client of the partner bank. Every transfer carries the end-to-end key
//! (the server's `payments::payouts::partner_key`), so asking again after a timeout is safe with a
//! partner that honours keys; with one that does not, reconciliation catches the duplicates.
//! Errors are classified per call, and the types say which answers can be definitive: only a
//! create has a [`CreateError::Refused`] (the partner's `422` on the transfer itself), and even
//! that is knowledge only when no earlier create of the payout reached the partner (the payout
//! worker decides). Every other answer that is not a success, on every call (a `422` on a
//! status check, a `401` after a key rotation, a lagging `404`, a `409`, a timeout, a `5xx`),
//! is a [`PartnerError`]: nothing is known, ask again later. Money that may have left is never
//! given back on a guess.

use std::time::Duration;

use chrono::NaiveDate;
use reqwest::StatusCode;

use crate::wire::{IncomingList, IncomingTransfer, Transfer, TransferList, TransferRequest};

/// The kind of a `422`: definitive only as the answer to a create.
const UNPROCESSABLE: &str = "unprocessable";

#[derive(Clone)]
pub struct PartnerClient {
    http: reqwest::Client,
    base_url: String,
}

/// The partner gave no definitive answer: ask again later.
#[derive(Debug, thiserror::Error)]
#[error("the partner did not answer usefully ({kind}): {detail}")]
pub struct PartnerError {
    /// A short label for metrics: `timeout`, `connection`, `server_error`, `in_flight` (a
    /// `409`), `unprocessable` (a `422` where it decides nothing), `client_error`, `bad_answer`,
    /// `fault`.
    pub kind: &'static str,
    /// The partner's own error code, when it answered with one (`not_reversible`, ...).
    pub code: Option<String>,
    /// For the logs.
    pub detail: String,
}

impl PartnerError {
    pub fn transient(kind: &'static str, detail: impl std::fmt::Display) -> Self {
        Self {
            kind,
            code: None,
            detail: detail.to_string(),
        }
    }
}

/// What a create can answer besides a transfer.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    /// The partner refused to make the transfer (`422`): the code it gave.
    #[error("the partner refused the transfer: {0}")]
    Refused(String),
    #[error(transparent)]
    Unanswered(#[from] PartnerError),
}

impl PartnerClient {
    pub fn new(base_url: &str, timeout: Duration) -> Self {
        let http = reqwest::Client::builder()
            .timeout(timeout)
            .build()
            .expect("a plain HTTP client builds");
        Self {
            http,
            base_url: base_url.trim_end_matches('/').to_owned(),
        }
    }

    pub async fn create_transfer(
        &self,
        key: &str,
        request: &TransferRequest,
    ) -> Result<Transfer, CreateError> {
        let sent = self
            .http
            .post(format!("{}/v1/transfers", self.base_url))
            .header("x-idempotency-key", key)
            .json(request)
            .send()
            .await;
        match read(sent).await {
            Err(PartnerError {
                kind: UNPROCESSABLE,
                code,
                ..
            }) => Err(CreateError::Refused(
                code.unwrap_or_else(|| "unknown".into()),
            )),
            answer => Ok(answer?),
        }
    }

    pub async fn transfer(&self, id: &str) -> Result<Transfer, PartnerError> {
        read(
            self.http
                .get(format!("{}/v1/transfers/{id}", self.base_url))
                .send()
                .await,
        )
        .await
    }

    pub async fn transfers_on(&self, date: NaiveDate) -> Result<Vec<Transfer>, PartnerError> {
        let sent = self
            .http
            .get(format!("{}/v1/transfers", self.base_url))
            .query(&[("date", date.to_string())])
            .send()
            .await;
        Ok(read::<TransferList>(sent).await?.data)
    }

    /// The money the partner received for us on `date` (its day, UTC).
    pub async fn incoming_on(
        &self,
        date: NaiveDate,
    ) -> Result<Vec<IncomingTransfer>, PartnerError> {
        let sent = self
            .http
            .get(format!("{}/v1/incoming", self.base_url))
            .query(&[("date", date.to_string())])
            .send()
            .await;
        Ok(read::<IncomingList>(sent).await?.data)
    }

    /// Test mode only (only the simulator answers it, `POST /_sim/incoming`): money arrives in
    /// our funding account with `reference`, and the simulator reports it like a bank would.
    pub async fn simulate_incoming(
        &self,
        amount: i64,
        currency: &str,
        reference: &str,
    ) -> Result<IncomingTransfer, PartnerError> {
        let body =
            serde_json::json!({"amount": amount, "currency": currency, "reference": reference});
        read(
            self.http
                .post(format!("{}/_sim/incoming", self.base_url))
                .json(&body)
                .send()
                .await,
        )
        .await
    }

    pub async fn reverse(&self, id: &str) -> Result<Transfer, PartnerError> {
        read(
            self.http
                .post(format!("{}/v1/transfers/{id}/reversal", self.base_url))
                .send()
                .await,
        )
        .await
    }
}

async fn read<T: serde::de::DeserializeOwned>(
    sent: reqwest::Result<reqwest::Response>,
) -> Result<T, PartnerError> {
    let response = sent.map_err(|err| {
        let kind = if err.is_timeout() {
            "timeout"
        } else {
            "connection"
        };
        PartnerError::transient(kind, err)
    })?;
    let status = response.status();
    if status.is_success() {
        return response
            .json()
            .await
            .map_err(|err| PartnerError::transient("bad_answer", err));
    }
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    let code = body["error"]["code"].as_str().map(str::to_owned);
    let kind = match status {
        StatusCode::UNPROCESSABLE_ENTITY => UNPROCESSABLE,
        StatusCode::CONFLICT => "in_flight",
        status if status.is_server_error() => "server_error",
        _ => "client_error",
    };
    Err(PartnerError {
        kind,
        detail: format!("{status} {}", code.as_deref().unwrap_or("unknown")),
        code,
    })
}
