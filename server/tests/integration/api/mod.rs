//! The JSON API under `/v1` (API.md §1–§5, §11–§13): idempotency, orders, payouts, refunds, API keys,
//! webhooks and their management, the request log, and what no input may do to it.

mod api_key_cache;
mod api_keys;
mod hostile_input;
mod idempotency;
mod modes;
mod orders;
mod payouts;
mod reconciliation;
pub mod refunds;
mod request_log;
mod sealed_secrets;
mod should_retry;
mod ssrf;
mod top_ups;
mod webhook_management;
mod webhooks;
