//! What travels between us and the partner: transfer requests, transfers, and its webhook events.

use chrono::{DateTime, Utc};
use serde::{Deserialize, Serialize};

#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct Destination {
    pub account_holder: String,
    pub iban: String,
}

/// `POST /v1/transfers`; `reference` is our payout id.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TransferRequest {
    pub amount: i64,
    pub currency: String,
    pub destination: Destination,
    pub reference: String,
}

#[derive(Debug, Clone, Copy, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum TransferStatus {
    Accepted,
    Paid,
    Failed,
    Reversed,
}

impl TransferStatus {
    /// The status as the partner writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            TransferStatus::Accepted => "accepted",
            TransferStatus::Paid => "paid",
            TransferStatus::Failed => "failed",
            TransferStatus::Reversed => "reversed",
        }
    }
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct Transfer {
    pub id: String,
    pub status: TransferStatus,
    pub amount: i64,
    pub currency: String,
    pub reference: String,
    pub destination: Destination,
    /// The `X-Idempotency-Key` the transfer was asked for with.
    pub idempotency_key: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct TransferList {
    pub data: Vec<Transfer>,
}

/// A webhook the partner sends: `transfer.paid`, `transfer.failed` or `transfer.reversed`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PartnerEvent {
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    pub created_at: DateTime<Utc>,
    pub data: PartnerEventData,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct PartnerEventData {
    pub transfer: Transfer,
}
