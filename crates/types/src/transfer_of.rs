//! Whose transfer to the partner it is: a payout's (to the merchant) or a refund's (to a
//! customer). Both take one path to the partner (API.md §13), so the partner's events, the
//! reversals of duplicates, the partner calls and reconciliation's items name the one or the
//! other (their `transfer_of` column, the item's wire field `payout_id`): a [`TransferOf`] says
//! which, so a refund's id is never taken for a payout's. It reads, binds and serialises as the
//! id's text, and an id of any other kind does not read as one.

use serde::Serialize;

use crate::ids::{ParseId, PayoutId, RefundId};
use crate::{PayoutStatus, RefundStatus};

/// The payout or the refund an outgoing transfer is made for.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize)]
#[serde(untagged)]
pub enum TransferOf {
    Payout(PayoutId),
    Refund(RefundId),
}

impl TransferOf {
    /// The kinds' names, as the `outgoing_transfers` view and the worker's queue name them.
    pub const KINDS: [&'static str; 2] = ["payout", "refund"];

    /// The payout or refund an id names, by its prefix; `None` for any other id.
    pub fn of(id: &str) -> Option<Self> {
        PayoutId::parse(id)
            .map(Self::Payout)
            .or_else(|| RefundId::parse(id).map(Self::Refund))
    }

    /// The payout or refund of `kind` (one of [`Self::KINDS`]) with `id`; `None` for another
    /// kind, or an id that is not of it.
    pub fn named(kind: &str, id: &str) -> Option<Self> {
        Self::of(id).filter(|of| of.kind() == kind)
    }

    /// Its kind's name: `payout` or `refund`.
    pub fn kind(&self) -> &'static str {
        match self {
            Self::Payout(_) => Self::KINDS[0],
            Self::Refund(_) => Self::KINDS[1],
        }
    }

    pub fn as_str(&self) -> &str {
        match self {
            Self::Payout(id) => id,
            Self::Refund(id) => id,
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
}

impl std::fmt::Display for TransferOf {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Stored as the id's `TEXT`; a stored id of another kind is an error, never a payout's.
#[cfg(feature = "sqlx")]
mod stored {
    use sqlx::encode::IsNull;
    use sqlx::error::BoxDynError;
    use sqlx::postgres::{PgArgumentBuffer, PgTypeInfo, PgValueRef};
    use sqlx::{Decode, Encode, Postgres, Type};

    use super::TransferOf;

    impl Type<Postgres> for TransferOf {
        fn type_info() -> PgTypeInfo {
            <String as Type<Postgres>>::type_info()
        }

        fn compatible(ty: &PgTypeInfo) -> bool {
            <String as Type<Postgres>>::compatible(ty)
        }
    }

    impl<'r> Decode<'r, Postgres> for TransferOf {
        fn decode(value: PgValueRef<'r>) -> Result<Self, BoxDynError> {
            let id = <&str as Decode<Postgres>>::decode(value)?;
            TransferOf::of(id).ok_or_else(|| format!("{id:?} is no payout's or refund's id").into())
        }
    }

    impl Encode<'_, Postgres> for TransferOf {
        fn encode_by_ref(&self, buf: &mut PgArgumentBuffer) -> Result<IsNull, BoxDynError> {
            <&str as Encode<Postgres>>::encode(self.as_str(), buf)
        }
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
            TransferOf::named("refund", "re_abc").map(|of| of.kind()),
            Some("refund")
        );
        assert_eq!(TransferOf::named("payout", "re_abc"), None);
        assert_eq!(
            TransferOf::Refund("re_1".into()).stage("succeeded".into()),
            Ok(PayoutStatus::Paid)
        );
    }

    #[test]
    fn it_serialises_as_its_id() {
        let of = TransferOf::Refund("re_1".into());
        assert_eq!(serde_json::to_string(&of).unwrap(), "\"re_1\"");
        assert_eq!(of.to_string(), "re_1");
    }
}
