//! Infrastructure that knows nothing of payments: the database pool and migrations (on the
//! embedded PostgreSQL of `kaadxpay-embedded-pg` without `DATABASE_URL`), logs and metrics,
//! the loop background workers run in, fail points, mail out, and the sealing of secrets kept
//! at rest.

pub mod db;
pub mod failpoints;
pub mod mail;
pub mod sealing;
pub mod telemetry;
pub mod workers;
