//! The words the server's domain and the console (`app`) share, in a crate of their own that
//! depends on nothing, so the console needs neither the server nor PostgreSQL to speak them:
//! a member's [`Role`] and its [`Permission`]s, and [`Currency`] with its exponent, which turns
//! typed amounts into minor units and minor units into decimals ([`Money`]).

mod money;
mod role;

pub use money::{Currency, Money, CURRENCIES};
pub use role::{Permission, Role};
