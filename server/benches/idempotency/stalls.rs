//! What kept an open loop's generator from its schedule, when it lagged: its thread kept off its
//! core (preempted by another thread, counted as involuntary context switches, or its virtual
//! CPU stolen by the hypervisor), its pacer's looks at the clock coming late ([`Stalls`]:
//! whatever the cause, off the core or busy with the connections in between), or every
//! connection busy with an earlier request. Read on the generator's own thread, around its
//! runtime.

use anyhow::Context;

use crate::processes::CpuTicks;
use crate::schedule::Stalls;

/// The generator's thread and core, read before its loop and after.
#[derive(Debug, Clone, Copy)]
pub struct Generator {
    /// Times another thread took the core from this one.
    involuntary_switches: u64,
    core: CpuTicks,
}

impl Generator {
    /// Read on the generator's thread; `core` as `/proc/stat` names it (`cpu0`).
    pub fn read(core: &str) -> anyhow::Result<Self> {
        let status = std::fs::read_to_string("/proc/thread-self/status")?;
        let involuntary_switches = status
            .lines()
            .find_map(|line| line.strip_prefix("nonvoluntary_ctxt_switches:"))
            .context("no nonvoluntary_ctxt_switches in /proc/thread-self/status")?
            .trim()
            .parse()?;
        Ok(Self {
            involuntary_switches,
            core: CpuTicks::of(core)?,
        })
    }

    /// What kept the generator from its schedule between `before` and `self`, for a loop's row:
    /// `stalls` its pacer's, `busiest` the most connections busy at once of `connections`.
    pub fn since(
        &self,
        before: &Self,
        stalls: Stalls,
        busiest: usize,
        connections: usize,
    ) -> anyhow::Result<String> {
        Ok(format!(
            "{stalls}; thread preempted {} times; stolen from its core by the hypervisor: {} ms; \
             at most {busiest} of {connections} connections busy",
            self.involuntary_switches - before.involuntary_switches,
            self.core.steal_since(&before.core)?.as_millis(),
        ))
    }
}
