//! The payments domain: money, orders and the balance.

/// A status enum's stored and shown names, written once for every status: `ALL` (its states in
/// the order given), `as_str` (a state's name), `TryFrom<String>` (a name back to its state, or
/// an error that says `"<name>" is not <what>`) and `Display` (the name). The enum itself, with
/// its serde, sqlx and OpenAPI attributes, stays where it is declared.
macro_rules! status_names {
    ($status:ident, $what:literal, { $($state:ident => $name:literal),+ $(,)? }) => {
        impl $status {
            pub const ALL: [Self; [$(Self::$state),+].len()] = [$(Self::$state),+];

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

pub mod approvals;
pub mod balance;
pub mod executor;
pub mod fields;
pub mod money;
pub mod order_status;
pub mod orders;
pub mod partner_calls;
pub mod partner_events;
pub mod payout_status;
pub mod payouts;
pub mod thresholds;
