//! The partner bank that payouts leave through: the wire format both sides speak, the client
//! we call it with, and the signature on its webhooks. (The server's `partner_sim` is a simulator of one.)

pub mod client;
pub mod signature;
pub mod wire;

/// The secret the simulator signs its webhooks with unless told otherwise; the server expects
/// it by default in embedded mode. A test secret, published on purpose.
pub const TEST_WEBHOOK_SECRET: &str = "whsec_partner_simulator_test_secret";
