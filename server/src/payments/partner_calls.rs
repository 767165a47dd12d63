//! The record of each call the payout worker makes to the partner and what it answered, for
//! the payout's timeline. Written after the call, outside any transaction that moves money: a
//! record that cannot be written is logged and dropped, never a reason to retry the payout.

use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::{PartnerCall, TransferOf};
use std::time::Duration;

use sqlx::PgPool;

use kaadxpay_partner::client::{CreateError, PartnerError};
use kaadxpay_partner::wire::Transfer;

/// What the partner answered, in a line.
pub trait Answer {
    fn describe(&self) -> String;
}

fn describe_transfer(transfer: &Transfer) -> String {
    format!("transfer {} {}", transfer.id, transfer.status.as_str())
}

fn describe_error(error: &PartnerError) -> String {
    match &error.code {
        Some(code) => format!("{}: {code}", error.kind),
        None => format!("{}: {}", error.kind, error.detail),
    }
}

impl Answer for Result<Transfer, PartnerError> {
    fn describe(&self) -> String {
        match self {
            Ok(transfer) => describe_transfer(transfer),
            Err(error) => describe_error(error),
        }
    }
}

impl Answer for Result<Transfer, CreateError> {
    fn describe(&self) -> String {
        match self {
            Ok(transfer) => describe_transfer(transfer),
            Err(CreateError::Refused(code)) => format!("refused: {code}"),
            Err(CreateError::Unanswered(error)) => describe_error(error),
        }
    }
}

impl Answer for Result<Vec<Transfer>, PartnerError> {
    fn describe(&self) -> String {
        match self {
            Ok(transfers) => match transfers.first() {
                Some(own) => format!("lists transfer {} under this key", own.id),
                None => "lists no transfer under this key".to_owned(),
            },
            Err(error) => describe_error(error),
        }
    }
}

/// One call about a payout's or refund's transfer, to note.
pub struct Noted<'a> {
    pub merchant_id: &'a MerchantId,
    pub transfer_of: &'a TransferOf,
    pub partner_key: &'a str,
}

impl Noted<'_> {
    pub async fn record(
        &self,
        pool: &PgPool,
        call: PartnerCall,
        answer: &impl Answer,
        took: Duration,
    ) {
        let written = sqlx::query!(
            "INSERT INTO partner_calls (merchant_id, transfer_of, call, partner_key, answer, latency_ms) \
             VALUES ($1, $2, $3, $4, $5, $6)",
            self.merchant_id.as_str(),
            self.transfer_of as _,
            call.as_str(),
            self.partner_key,
            answer.describe(),
            i32::try_from(took.as_millis()).unwrap_or(i32::MAX),
        )
        .execute(pool)
        .await;
        if let Err(error) = written {
            tracing::warn!(transfer_of = %self.transfer_of, error = %error, "a partner call could not be noted for the timeline");
        }
    }
}
