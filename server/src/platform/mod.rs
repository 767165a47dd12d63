//! Infrastructure that knows nothing of payments: the database pool and migrations, the embedded
//! PostgreSQL, prefixed ids, logs and metrics, the loop background workers run in, fail points.

pub mod db;
pub mod embedded_pg;
pub mod failpoints;
pub mod ids;
pub mod telemetry;
pub mod workers;
