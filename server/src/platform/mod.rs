//! Infrastructure that knows nothing of payments: the database pool and migrations (on the
//! embedded PostgreSQL of `kaadxpay-embedded-pg` without `DATABASE_URL`), prefixed ids, logs
//! and metrics, the loop background workers run in, fail points.

pub mod db;
pub mod failpoints;
pub mod ids;
pub mod telemetry;
pub mod workers;
