//! Kaadxpay: a payments service whose every POST takes effect at most once. The binary
//! (`main.rs`) is a thin command line over this library. The folders are the layers, from the
//! bottom up:
//! - the primitives: `platform` (the database, logs and metrics, the worker loop, fail points)
//!   and `contract` (the API's errors, input parsing, pages), with the flags (`service/config`);
//! - the engine: `idempotency` (each `POST` at most once);
//! - the kernel: `service/state` (what both adapters share) and `service/commands` (the keyed
//!   command both run);
//! - the domain: `payments`, `webhooks`, `accounts` (merchants' API keys, console users,
//!   teams), `request_log`, `history` (timelines, retention); above it `reconcile`, then
//!   `exports` and `service/keyed` (every keyed command);
//! - the adapters: `http` (the JSON API) and `console` (the Leptos console), which never import
//!   each other, then `edge`, the router and middleware that hold both;
//! - the composition root: `service/components` and `service/startup`.
//!
//! `server/tests/integration/ops/layers.rs` ranks them and fails on an upward import.
//!
//! Beside it, crates of their own: `kaadxpay-types` (words shared with the console, ids),
//! `kaadxpay-partner` (the partner bank's wire format, our client, its signature),
//! `kaadxpay-partner-sim` (a simulator of that bank) and `kaadxpay-embedded-pg`.

pub mod accounts;
pub mod console;
pub mod contract;
pub mod edge;
pub mod exports;
pub mod history;
pub mod http;
pub mod idempotency;
pub mod payments;
pub mod platform;
pub mod reconcile;
pub mod request_log;
pub mod service;
pub mod webhooks;
