//! Webhooks to merchants (API.md §5): endpoints with their signing secrets, events written in
//! the transaction of the change they report (the outbox), Standard Webhooks signatures, the
//! dispatcher that drains deliveries with retries, and the guard that keeps them off the
//! service's own networks (`destination`); managing an endpoint after its creation (`management`:
//! update, disable, rotate its secret, recover its failed deliveries, send it a test event);
//! what an attempt sends besides its body, and a delivery as a `curl` command (`attempt`); the
//! secrets sealed at rest (`secrets`).

pub mod attempt;
pub mod destination;
pub mod dispatcher;
pub mod endpoints;
pub mod events;
pub mod management;
pub mod outbox;
pub mod schedule;
pub mod secrets;
pub mod signature;

pub use dispatcher::Dispatcher;
pub use outbox::publish;
