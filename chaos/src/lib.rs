//! The chaos test of the high-availability topology in `deploy/`.
pub mod receiver;
