//! A timeline's moments as data: what happened, never a sentence.

use chrono::NaiveDate;
use serde::{Deserialize, Serialize};

use crate::{ErrorCode, EventType, ItemKind, KeyStatus, PartnerCall, ReversalAction, Verdict};

/// What happened at a moment of a timeline, with its facts (codes as the server stores them,
/// read back typed: a stored code that is none of ours fails the timeline), tagged by `moment`
/// in JSON: the server's queries build it so, the API answers it so, and the console writes it
/// in its reader's language.
#[derive(Debug, Clone, PartialEq, Deserialize, Serialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(tag = "moment", rename_all = "snake_case")]
pub enum Moment {
    /// A request that came with the key: its route template, HTTP status, verdict, error code
    /// and latency (rounded to a tenth of a millisecond).
    Request {
        route: String,
        status: u16,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        verdict: Option<Verdict>,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        error_code: Option<ErrorCode>,
        latency_ms: f64,
    },
    /// The key's record was stored for an endpoint.
    RecordStored { endpoint: String },
    /// The record's status changed (to `expired` too), with its error if it has one.
    RecordChanged {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        status: KeyStatus,
        error: Option<String>,
    },
    /// A payout was created (amount in minor units) under its end-to-end key.
    PayoutCreated {
        amount: i64,
        currency: String,
        partner_key: String,
    },
    /// An order was created (amount in minor units).
    OrderCreated { amount: i64, currency: String },
    /// A call to the partner (`create`, `status`, `listing`) and what it answered.
    PartnerCall {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        call: PartnerCall,
        partner_key: String,
        answer: String,
        latency_ms: i64,
    },
    /// A webhook the partner sent about one of its transfers.
    PartnerWebhook {
        event_type: String,
        transfer_id: String,
    },
    /// A reconciliation run's item about the payout: its kind, the action taken, the transfer.
    Reconciliation {
        run_date: NaiveDate,
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        item: ItemKind,
        #[cfg_attr(feature = "openapi", schema(value_type = Option<String>))]
        action: Option<ReversalAction>,
        transfer_id: Option<String>,
    },
    /// The reversal of a duplicate transfer, and its state.
    Reversal {
        transfer_id: String,
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        state: ReversalAction,
    },
    /// An event was sent to the merchant.
    EventSent {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        event_type: EventType,
    },
    /// One attempt to deliver an event to an endpoint: its HTTP status, else its error, else
    /// none (no answer).
    Delivery {
        #[cfg_attr(feature = "openapi", schema(value_type = String))]
        event_type: EventType,
        url: String,
        status_code: Option<u16>,
        error: Option<String>,
        latency_ms: i64,
    },
}

impl Moment {
    /// The kind of moment (the console's badge and class): `request`, `record`, `payout`,
    /// `order`, `partner_call`, `partner_webhook`, `reconciliation`, `reversal`, `event` or
    /// `delivery`.
    pub fn kind(&self) -> &'static str {
        match self {
            Moment::Request { .. } => "request",
            Moment::RecordStored { .. } | Moment::RecordChanged { .. } => "record",
            Moment::PayoutCreated { .. } => "payout",
            Moment::OrderCreated { .. } => "order",
            Moment::PartnerCall { .. } => "partner_call",
            Moment::PartnerWebhook { .. } => "partner_webhook",
            Moment::Reconciliation { .. } => "reconciliation",
            Moment::Reversal { .. } => "reversal",
            Moment::EventSent { .. } => "event",
            Moment::Delivery { .. } => "delivery",
        }
    }
}
