//! Our client of the partner bank. Every transfer carries the end-to-end key
//! ([`crate::payments::payouts::partner_key`]), so asking again after a timeout is safe with a
//! partner that honours keys; with one that does not, reconciliation catches the duplicates.
//! Errors are classified: a refusal is definitive, anything else is worth retrying.

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
    /// The partner said no, for good (`4xx`): the code it gave.
    #[error("the partner refused: {0}")]
    Refused(String),
    /// A timeout, a refused connection or a `5xx`: nothing is known, so ask again later.
    #[error("the partner did not answer usefully: {0}")]
    Transient(String),
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
    let response = sent.map_err(|err| PartnerError::Transient(err.to_string()))?;
    let status = response.status();
    if status.is_success() {
        return response
            .json()
            .await
            .map_err(|err| PartnerError::Transient(err.to_string()));
    }
    let body: serde_json::Value = response.json().await.unwrap_or_default();
    let code = body["error"]["code"]
        .as_str()
        .unwrap_or("unknown")
        .to_owned();
    if status.is_client_error()
        && status != StatusCode::REQUEST_TIMEOUT
        && status != StatusCode::TOO_MANY_REQUESTS
    {
        Err(PartnerError::Refused(code))
    } else {
        Err(PartnerError::Transient(format!("{status} {code}")))
    }
}
