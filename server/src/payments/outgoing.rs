//! Transfers we send the partner, whoever they pay: a payout's (to the merchant) or a refund's
//! (to a customer). Both take one path (API.md §13: "goes to the partner like a payout"): the
//! worker ([`super::executor`]) claims both from their queues, calls the partner with the same
//! end-to-end key shape and classifies its answers alike; the partner's webhooks
//! ([`super::partner_events`]), reconciliation and its reversals find either through the
//! database's `outgoing_transfers` view. What differs is only what each move means for its
//! object, which [`TransferOf`] dispatches to [`super::payouts`] or [`super::refunds`].

use kaadxpay_types::ids::{PayoutId, RefundId};
use kaadxpay_types::{PayoutStatus, RefundStatus};
use sqlx::PgConnection;

use super::{payouts, refunds};

pub use super::transfers::{partner_key, Mover, To};

/// Whose transfer it is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TransferOf {
    Payout(PayoutId),
    Refund(RefundId),
}

impl TransferOf {
    /// The payout or refund an id names, by its prefix; `None` for any other id.
    pub fn of(id: &str) -> Option<Self> {
        let prefix = id.split_once('_').map(|(prefix, _)| prefix)?;
        if prefix == PayoutId::PREFIX {
            Some(Self::Payout(PayoutId::from(id)))
        } else if prefix == RefundId::PREFIX {
            Some(Self::Refund(RefundId::from(id)))
        } else {
            None
        }
    }

    /// The payout or refund of `kind` (`payout` or `refund`, as the worker's queue and the
    /// `outgoing_transfers` view name it) with `id`, and where its transfer stands by its
    /// stored `status` (see [`TransferOf::stage`]).
    pub fn read(kind: &str, id: String, status: String) -> sqlx::Result<(Self, PayoutStatus)> {
        let of = match kind {
            "payout" => Self::Payout(id.into()),
            "refund" => Self::Refund(id.into()),
            _ => {
                return Err(sqlx::Error::Decode(
                    format!("a transfer of a {kind}").into(),
                ))
            }
        };
        let stage = of
            .stage(status)
            .map_err(|why| sqlx::Error::Decode(why.into()))?;
        Ok((of, stage))
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Payout(id) => id,
            Self::Refund(id) => id,
        }
    }

    /// The table that queues it.
    pub fn table(&self) -> &'static str {
        match self {
            Self::Payout(_) => "payouts",
            Self::Refund(_) => "refunds",
        }
    }

    /// The fail point just before its create is sent to the partner (API.md §10).
    pub fn before_partner_call(&self) -> &'static str {
        match self {
            Self::Payout(_) => "payout.before_partner_call",
            Self::Refund(_) => "refund.before_partner_call",
        }
    }

    /// The fail point just after its create was sent.
    pub fn after_partner_call(&self) -> &'static str {
        match self {
            Self::Payout(_) => "payout.after_partner_call",
            Self::Refund(_) => "refund.after_partner_call",
        }
    }

    /// Its stored `status` as the payout state that says the same of its transfer (a refund's
    /// `succeeded` is `paid`), or the reason it is not one.
    pub fn stage(&self, status: String) -> Result<PayoutStatus, String> {
        match self {
            Self::Payout(_) => PayoutStatus::try_from(status),
            Self::Refund(_) => RefundStatus::try_from(status).map(RefundStatus::transfer_stage),
        }
    }

    /// Makes the move `to` (see [`To`]) by `mover`; whether it moved.
    pub async fn mark(
        &self,
        conn: &mut PgConnection,
        mover: Mover,
        to: To<'_>,
    ) -> sqlx::Result<bool> {
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

    /// Reconciliation reversed a duplicate transfer of it: it stays as it is and counts it.
    pub async fn mark_duplicate_reversed(&self, conn: &mut PgConnection) -> sqlx::Result<()> {
        match self {
            Self::Payout(id) => payouts::mark_duplicate_reversed(conn, id).await,
            Self::Refund(id) => refunds::mark_duplicate_reversed(conn, id).await,
        }
    }
}

impl std::fmt::Display for TransferOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_id_names_its_kind_by_prefix() {
        assert_eq!(
            TransferOf::of("po_abc"),
            Some(TransferOf::Payout("po_abc".into()))
        );
        assert_eq!(
            TransferOf::of("re_abc"),
            Some(TransferOf::Refund("re_abc".into()))
        );
        assert_eq!(TransferOf::of("ord_abc"), None);
        assert_eq!(TransferOf::of("reabc"), None);
        assert_eq!(
            TransferOf::Refund("re_1".into()).stage("succeeded".into()),
            Ok(PayoutStatus::Paid)
        );
    }
}
