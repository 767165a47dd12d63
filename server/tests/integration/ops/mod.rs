//! Running the service: the command line, settings checked at start, health and metrics,
//! retention, the OpenAPI document under Schemathesis, and the layering of the sources.

mod cli;
mod endpoints;
mod layers;
mod retention;
mod schemathesis;
mod settings;
