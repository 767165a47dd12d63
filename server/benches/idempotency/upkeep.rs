//! What else ran on the server's core while an open loop ran: the database's own upkeep
//! (autovacuum's runs, checkpoints) and the time the hypervisor stole from the core. An open
//! loop's latencies count from their intended send times, so any stall shows in its tail; its
//! row of upkeep names the stalls that were not the requests' own, or rules them out.

use std::time::Duration;

use sqlx::PgPool;

use crate::processes::CpuTicks;

/// The counters of what else runs, read before a loop and after it.
#[derive(Debug, Clone, Copy)]
pub struct Upkeep {
    /// Autovacuum's runs of `VACUUM` and of `ANALYZE`, on any table (counted when they end).
    vacuums: i64,
    analyzes: i64,
    /// Checkpoints, timed or requested.
    checkpoints: i64,
    /// Autovacuum workers running at the reading.
    running: i64,
    /// The server's core's time.
    core: CpuTicks,
}

impl Upkeep {
    pub async fn read(pool: &PgPool, core: &str) -> anyhow::Result<Self> {
        let (vacuums, analyzes, checkpoints, running): (i64, i64, i64, i64) = sqlx::query_as(
            "SELECT (SELECT coalesce(sum(autovacuum_count), 0) FROM pg_stat_all_tables)::int8, \
               (SELECT coalesce(sum(autoanalyze_count), 0) FROM pg_stat_all_tables)::int8, \
               (SELECT checkpoints_timed + checkpoints_req FROM pg_stat_bgwriter)::int8, \
               (SELECT count(*) FROM pg_stat_activity \
                WHERE backend_type = 'autovacuum worker')::int8",
        )
        .fetch_one(pool)
        .await?;
        Ok(Self {
            vacuums,
            analyzes,
            checkpoints,
            running,
            core: CpuTicks::of(core)?,
        })
    }

    /// What ran between `before` and `self`, for a loop's row.
    pub fn since(&self, before: &Self) -> anyhow::Result<String> {
        let stolen: Duration = self.core.steal_since(&before.core)?;
        Ok(format!(
            "{} autovacuum and {} autoanalyze runs ended, {} checkpoint(s); autovacuum workers \
             running at its start and end: {} and {}; stolen from the core by the hypervisor: \
             {} ms",
            self.vacuums - before.vacuums,
            self.analyzes - before.analyzes,
            self.checkpoints - before.checkpoints,
            before.running,
            self.running,
            stolen.as_millis()
        ))
    }
}
