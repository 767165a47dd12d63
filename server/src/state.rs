//! The services every adapter shares (the HTTP API, the console): the database pool, the
//! idempotency engine, the metrics, the partner bank, and the settings that requests need. It
//! knows neither adapter, so both can hold it without a loop through `startup`.

use std::sync::Arc;

use metrics_exporter_prometheus::PrometheusHandle;
use sqlx::PgPool;

use crate::auth::cache::ApiKeyCache;
use crate::idempotency::Idempotency;
use crate::partner::client::PartnerClient;
use crate::request_log::RequestLog;

#[derive(Clone)]
pub struct AppState {
    pub pool: PgPool,
    /// API-key lookups, remembered for a few seconds.
    pub api_keys: Arc<ApiKeyCache>,
    pub idempotency: Idempotency,
    pub metrics: PrometheusHandle,
    /// The partner bank, asked whose transfer a partner webhook is about when that is unknown.
    pub partner: PartnerClient,
    pub partner_webhook_secret: Arc<str>,
    /// Webhook endpoints may be internal addresses (local development and tests).
    pub webhook_allow_private_networks: bool,
    /// Where served `/v1` requests are recorded.
    pub request_log: RequestLog,
}
