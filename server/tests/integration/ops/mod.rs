//! Running the service: the command line, settings checked at start, health and metrics,
//! retention, the idempotency engine's schema beside the migrations, the OpenAPI document under Schemathesis and client generators, and the layering
//! of the sources.

mod audit_chain;
mod checked_sql;
mod cli;
mod command_line;
mod endpoints;
mod engine_schema;
mod generated_clients;
mod keyed_commands;
mod layers;
mod ledger;
mod ledger_sequences;
mod retention;
mod schemathesis;
mod settings;
mod typed_contract;
