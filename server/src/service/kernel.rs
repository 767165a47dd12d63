//! The kernel the domain runs on: what a keyed command's checks, effect and answer may reach
//! (the database, the idempotency engine, and the one setting a check reads). The adapters'
//! state ([`super::state::AppState`]) holds it beside what only they need, so the domain's
//! commands never see the API keys' cache, the request log or the partner's client.

use sqlx::PgPool;

use crate::idempotency::Idempotency;

#[derive(Clone)]
pub struct Kernel {
    pub pool: PgPool,
    pub idempotency: Idempotency,
    /// Webhook endpoints may be internal addresses (local development and tests).
    pub webhook_allow_private_networks: bool,
}
