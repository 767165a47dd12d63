//! The words the server's domain and the console (`app`) share, in a crate of their own that
//! depends only on serde and chrono (and rand, for `ids`), so the console needs neither the
//! server nor PostgreSQL to speak them:
//! a member's [`Role`] and its [`Permission`]s, and [`Currency`] with its exponent, which turns
//! typed amounts into minor units and minor units into decimals ([`Money`]), and a timeline's
//! [`Moment`]s as data; the [`BalanceTransactionType`]s of a statement; where a
//! [`PayoutStatus`], a [`RefundStatus`] or an [`OrderStatus`] stands and the moves between them;
//! the [`ErrorCode`] of a refusal; the [`EventType`]s of merchants' webhooks; whose outgoing transfer it is ([`TransferOf`]); the
//! [`ObjectType`] a record is about, and the [`ObjectRef`] that names one by its typed id; an audit entry's [`AuditAction`] and [`ActorKind`]; test
//! mode's [`Scenario`]s; the [`IdempotencyKey`] and its rule; the other states the console shows ([`KeyStatus`], [`Access`],
//! [`RunStatus`], ...); and the prefixed [`ids`], typed per kind.

/// A status enum's stored and shown names, written once for every status: `ALL` (its states in
/// the order given), `NAMES` (theirs), `as_str` (a state's name), `TryFrom<String>` (a name back to its state, or
/// an error that says `"<name>" is not <what>`) and `Display` (the name). The enum itself, with
/// its serde, sqlx and OpenAPI attributes, stays where it is declared.
macro_rules! status_names {
    ($status:ident, $what:literal, { $($state:ident => $name:literal),+ $(,)? }) => {
        impl $status {
            pub const ALL: [Self; [$(Self::$state),+].len()] = [$(Self::$state),+];
            /// Every state's name, in the order of `ALL` (what a list's status filter offers).
            pub const NAMES: [&'static str; [$($name),+].len()] = [$($name),+];

            pub fn as_str(self) -> &'static str {
                match self {
                    $(Self::$state => $name,)+
                }
            }
        }

        impl TryFrom<String> for $status {
            type Error = String;

            fn try_from(name: String) -> Result<Self, String> {
                Self::ALL
                    .into_iter()
                    .find(|status| status.as_str() == name)
                    .ok_or_else(|| format!("{name:?} is not {}", $what))
            }
        }

        impl std::fmt::Display for $status {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

/// The names of the states of `all` that `may_become` lets move to `to`, in the order of `all`
/// (what a conditional `UPDATE` of a move binds).
fn names_of_states_before<S: Copy>(
    all: &[S],
    to: S,
    may_become: fn(S, S) -> bool,
    name: fn(S) -> &'static str,
) -> Vec<&'static str> {
    all.iter()
        .copied()
        .filter(|from| may_become(*from, to))
        .map(name)
        .collect()
}

mod audit;
mod balance_transaction_type;
mod error_code;
mod event_type;
pub mod idempotency_key;
pub mod ids;
mod money;
mod object_type;
mod order_status;
mod payout_status;
mod refund_status;
mod role;
mod scenario;
mod states;
mod timeline;
mod transfer_of;

pub use audit::{Actor, ActorKind, AuditAction};
pub use balance_transaction_type::BalanceTransactionType;
pub use error_code::ErrorCode;
pub use event_type::{EventObject, EventType};
pub use idempotency_key::IdempotencyKey;
pub use money::{Currency, Money, CURRENCIES};
pub use object_type::{ObjectRef, ObjectType};
pub use order_status::OrderStatus;
pub use payout_status::PayoutStatus;
pub use refund_status::RefundStatus;
pub use role::{Permission, Role};
pub use scenario::Scenario;
pub use states::{
    Access, DeliveryStatus, Door, EndpointStatus, ItemKind, KeyStatus, PartnerCall, RecoveryPoint,
    ReversalAction, RunStatus, Verdict,
};
pub use timeline::Moment;
pub use transfer_of::TransferOf;
