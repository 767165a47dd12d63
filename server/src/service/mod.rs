//! The service as a whole: its settings, the state both adapters share, the commands both run
//! through the idempotency engine (and the list of every keyed one), and start-up (state,
//! router, workers, listener).

pub mod commands;
pub mod components;
pub mod config;
pub mod flags;
pub mod keyed;
pub mod startup;
pub mod state;
