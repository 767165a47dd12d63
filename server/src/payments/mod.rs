//! The payments domain: money, orders and the balance.

pub mod balance;
pub mod money;
pub mod orders;
