//! Who may act: merchants and their API keys, console users (merchant members and support
//! staff) and their two-step sign-in, and a merchant's team with its roles and invitations.

pub mod auth;
pub mod team;
pub mod two_factor;
pub mod users;
