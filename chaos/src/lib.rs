//! The chaos test of the high-availability topology in `deploy/`: retrying clients
//! ([`workload`]) against the cluster ([`cluster`]) while a [`nemesis`] injects faults, then
//! the [`checker`] and the clients' view ([`analysis`]) give the verdict ([`run`]).
//! [`receiver`] is the webhook receiver the cluster runs.

pub mod analysis;
pub mod checker;
pub mod cluster;
pub mod nemesis;
pub mod receiver;
pub mod run;
pub mod workload;
