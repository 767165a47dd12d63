//! What travels between us and the partner: transfer requests, transfers, money it received for
//! us (incoming transfers), and its webhook events.

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

/// Money the partner received into our funding account (API.md §13): `GET /v1/incoming` lists
/// them and `transfer.received` reports each. `reference` is what the sender wrote, which names
/// the merchant it is for when it is one of our funding references.
#[derive(Debug, Clone, Serialize, Deserialize, PartialEq, Eq)]
pub struct IncomingTransfer {
    /// `in_…`.
    pub id: String,
    pub amount: i64,
    pub currency: String,
    pub reference: String,
    pub received_at: DateTime<Utc>,
}

#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IncomingList {
    pub data: Vec<IncomingTransfer>,
}

/// The type of the webhook that reports an [`IncomingTransfer`].
pub const TRANSFER_RECEIVED: &str = "transfer.received";

/// The webhook `transfer.received`: its `data` is the incoming transfer itself.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct IncomingEvent {
    pub event_id: String,
    #[serde(rename = "type")]
    pub event_type: String,
    /// When the partner raised it (not every partner sends it).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub created_at: Option<DateTime<Utc>>,
    pub data: IncomingTransfer,
}
