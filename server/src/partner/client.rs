//! Our client of the partner bank. Every transfer carries the end-to-end key
//! ([`crate::payments::payouts::partner_key`]), so asking again after a timeout is safe with a
//! partner that honours keys; with one that does not, reconciliation catches the duplicates.
//! Errors are classified, and only the partner's `422` (it refuses the transfer itself) is
//! definitive: money that may have left is never given back on a guess, so a `401` after a key
//! rotation, a lagging `404`, a `409` for the same key still in flight, a timeout or a `5xx` all
//! mean "ask again later".

use std::time::Duration;

use chrono::NaiveDate;
use reqwest::StatusCode;

use super::wire::{Transfer, TransferList, TransferRequest};

#[derive(Clone)]
pub struct PartnerClient {
    http: reqwest::Client,
    base_url: String,
}

#[derive(Debug, thiserror::Error)]
pub enum PartnerError {
    /// The partner refused the transfer for good (`422`): the code it gave.
    #[error("the partner refused: {0}")]
    Refused(String),
    /// Nothing definitive is known, so ask again later. `kind` is a short label for metrics
    /// (`timeout`, `connection`, `server_error`, `in_flight`, `client_error`, `bad_answer`,
    /// `fault`); `detail` is for the logs.
    #[error("the partner did not answer usefully ({kind}): {detail}")]
    Transient { kind: &'static str, detail: String },
}

impl PartnerError {
    pub fn transient(kind: &'static str, detail: impl std::fmt::Display) -> Self {
        Self::Transient {
            kind,
            detail: detail.to_string(),
        }
    }
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
    ) -> Result<Transfer, PartnerError> {
        let sent = self
            .http
            .post(format!("{}/v1/transfers", self.base_url))
            .header("x-idempotency-key", key)
            .json(request)
            .send()
            .await;
        read(sent).await
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
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or("unknown")
        .to_owned();
    let kind = match status {
        StatusCode::UNPROCESSABLE_ENTITY => return Err(PartnerError::Refused(code)),
        StatusCode::CONFLICT => "in_flight",
        status if status.is_server_error() => "server_error",
        _ => "client_error",
    };
    Err(PartnerError::transient(kind, format!("{status} {code}")))
}
