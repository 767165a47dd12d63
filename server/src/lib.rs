//! Kaadxpay: a payments service whose every POST takes effect at most once. The binary
//! (`main.rs`) is a thin command line over this library.

pub mod auth;
pub mod commands;
pub mod config;
pub mod console_impl;
pub mod db;
pub mod embedded_pg;
pub mod error;
pub mod exports;
pub mod failpoints;
pub mod http;
pub mod idempotency;
pub mod ids;
pub mod input;
pub mod pagination;
pub mod partner;
pub mod partner_sim;
pub mod payments;
pub mod reconcile;
pub mod request_log;
pub mod retention;
pub mod startup;
pub mod state;
pub mod team;
pub mod telemetry;
pub mod timeline;
pub mod users;
pub mod webhooks;
pub mod workers;
