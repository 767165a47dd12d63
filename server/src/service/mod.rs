//! The service as a whole: its settings, the kernel the domain runs on (who acts, the commands
//! both adapters run through the idempotency engine), the state both adapters share, the list of
//! every keyed command, and start-up (state, router, workers, listener).

pub mod author;
pub mod commands;
pub mod components;
pub mod config;
pub mod flags;
pub mod kernel;
pub mod keyed;
pub mod startup;
pub mod state;
