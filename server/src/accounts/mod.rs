//! Who may act: merchants and their API keys, console users (merchant members and support
//! staff), and a merchant's team with its roles and invitations.

pub mod auth;
pub mod team;
pub mod users;
