//! Transfers we send the partner, whoever they pay: a payout's (to the merchant) or a refund's
//! (to a customer). Both take one path (API.md §13: "goes to the partner like a payout"): the
//! worker ([`super::executor`]) claims both from their queues, calls the partner with the same
//! end-to-end key shape and classifies its answers alike; the partner's webhooks
//! ([`super::partner_events`]), reconciliation and its reversals find either through the
//! database's `outgoing_transfers` view. What differs is only what each move means for its
//! object, which [`TransferOf`] dispatches to [`super::payouts`] or [`super::refunds`].

use kaadxpay_types::PayoutStatus;
use sqlx::PgConnection;

use super::{payouts, refunds};

pub use super::transfers::{partner_key, Mover, To};
pub use kaadxpay_types::TransferOf;

/// The payout or refund of `kind` (one of [`TransferOf::KINDS`], as the worker's queue and the
/// `outgoing_transfers` view name it) with `id`, and where its transfer stands by its stored
/// `status` (see [`TransferOf::stage`]).
pub fn read(kind: &str, id: &str, status: String) -> sqlx::Result<(TransferOf, PayoutStatus)> {
    let decode = |why: String| sqlx::Error::Decode(why.into());
    let of = TransferOf::named(kind, id)
        .ok_or_else(|| decode(format!("{id:?} as a transfer of a {kind}")))?;
    let stage = of.stage(status).map_err(decode)?;
    Ok((of, stage))
}

/// What the worker, the partner's webhooks and reconciliation do with the payout or refund
/// whose transfer it is.
pub(crate) trait Outgoing {
    /// The table that queues it.
    fn table(&self) -> &'static str;
    /// The fail point just before its create is sent to the partner (API.md §10).
    fn before_partner_call(&self) -> &'static str;
    /// The fail point just after its create was sent.
    fn after_partner_call(&self) -> &'static str;
    /// Makes the move `to` (see [`To`]) by `mover`; whether it moved.
    async fn mark(&self, conn: &mut PgConnection, mover: Mover, to: To<'_>) -> sqlx::Result<bool>;
    /// Reconciliation reversed a duplicate transfer of it: it stays as it is and counts it.
    async fn mark_duplicate_reversed(&self, conn: &mut PgConnection) -> sqlx::Result<()>;
}

impl Outgoing for TransferOf {
    fn table(&self) -> &'static str {
        match self {
            Self::Payout(_) => "payouts",
            Self::Refund(_) => "refunds",
        }
    }

    fn before_partner_call(&self) -> &'static str {
        match self {
            Self::Payout(_) => "payout.before_partner_call",
            Self::Refund(_) => "refund.before_partner_call",
        }
    }

    fn after_partner_call(&self) -> &'static str {
        match self {
            Self::Payout(_) => "payout.after_partner_call",
            Self::Refund(_) => "refund.after_partner_call",
        }
    }

    async fn mark(&self, conn: &mut PgConnection, mover: Mover, to: To<'_>) -> sqlx::Result<bool> {
        use To::*;
        Ok(match (self, to) {
            (Self::Payout(id), InTransit(transfer, poll_in)) => {
                payouts::mark_in_transit(conn, id, mover, transfer, poll_in)
                    .await?
                    .is_some()
            }
            (Self::Payout(id), Paid(transfer)) => payouts::mark_paid(conn, id, mover, transfer)
                .await?
                .is_some(),
            (Self::Payout(id), Failed(transfer, code)) => {
                payouts::mark_failed(conn, id, mover, transfer, code)
                    .await?
                    .is_some()
            }
            (Self::Payout(id), Reversed(transfer)) => {
                payouts::mark_reversed(conn, id, mover, transfer)
                    .await?
                    .is_some()
            }
            (Self::Refund(id), to) => refunds::mark(conn, id, mover, to).await?.is_some(),
        })
    }

    async fn mark_duplicate_reversed(&self, conn: &mut PgConnection) -> sqlx::Result<()> {
        match self {
            Self::Payout(id) => payouts::mark_duplicate_reversed(conn, id).await,
            Self::Refund(id) => refunds::mark_duplicate_reversed(conn, id).await,
        }
    }
}
