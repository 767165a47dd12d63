//! Every integration test of the server, in one binary: one link, one embedded PostgreSQL (a
//! fresh database per test, copied from a migrated template), and the long tests (Playwright,
//! Schemathesis, the crash tests) running beside the short ones instead of after them.
//! An area is a module, so one area runs alone with a filter:
//! `cargo test -p server --features server/failpoints --test integration api::`.

mod common;

mod api;
mod console;
mod faults;
mod ops;
mod partner;
mod sdks;
