//! The words the server's domain and the console (`app`) share, in a crate of their own that
//! depends only on serde and chrono (and rand, for `ids`), so the console needs neither the
//! server nor PostgreSQL to speak them:
//! a member's [`Role`] and its [`Permission`]s, and [`Currency`] with its exponent, which turns
//! typed amounts into minor units and minor units into decimals ([`Money`]), and a timeline's
//! [`Moment`]s as data; and the prefixed [`ids`], typed per kind.

pub mod ids;
mod money;
mod role;
mod timeline;

pub use money::{Currency, Money, CURRENCIES};
pub use role::{Permission, Role};
pub use timeline::Moment;
