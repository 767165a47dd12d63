//! What `/proc` says about processes and CPUs: the CPU time a process has used (and the time of
//! its children that ended), its parent and children, and how busy a CPU has been. The
//! benchmark reads them around a load run to give CPU per request, of the server and of the
//! database, and the share of the system's core the run left idle.

use std::process::Command;
use std::sync::OnceLock;
use std::time::Duration;

use anyhow::Context;

/// The CPU time (user and system) process `pid` has used so far.
pub fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    ticks_to_time(stat_sum(pid, USED)?)
}

/// The CPU time of a process tree one level deep: `pid`, the children it runs now, and those
/// that ended and were waited for (the kernel adds their time to `pid`'s `cutime` and `cstime`).
/// A database cluster, given its postmaster: every backend and background process.
pub fn tree_cpu_time(pid: u32) -> anyhow::Result<Duration> {
    loop {
        let ended = stat_sum(pid, CHILDREN_USED)?;
        let running: u64 = children(pid)?
            .into_iter()
            .filter_map(|child| stat_sum(child, USED).ok())
            .sum();
        // A child that ended while its siblings were read has its time in neither sum, or in
        // both: read them again (a backend of a pool ending, an autovacuum worker of seconds).
        if stat_sum(pid, CHILDREN_USED)? == ended {
            return ticks_to_time(stat_sum(pid, USED)? + running + ended);
        }
    }
}

/// The CPUs of the machine that are online (the `cpuN` lines of `/proc/stat`), whichever this
/// process may run on; 1 when it cannot be read.
pub fn online_cpus() -> usize {
    std::fs::read_to_string("/proc/stat").map_or(1, |stat| {
        stat.lines()
            .filter(|line| {
                line.strip_prefix("cpu")
                    .is_some_and(|rest| rest.starts_with(|c: char| c.is_ascii_digit()))
            })
            .count()
            .max(1)
    })
}

/// The parent of `pid`.
pub fn parent(pid: u32) -> anyhow::Result<u32> {
    Ok(u32::try_from(stat_sum(pid, &[4])?)?)
}

/// The processes whose parent is `pid`.
pub fn children(pid: u32) -> anyhow::Result<Vec<u32>> {
    Ok(std::fs::read_dir("/proc")?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&child| parent(child).is_ok_and(|of| of == pid))
        .collect())
}

/// A CPU's time so far, busy and in all (`/proc/stat`, in clock ticks): idle and waiting for
/// I/O are not busy.
#[derive(Debug, Clone, Copy)]
pub struct CpuTicks {
    busy: u64,
    total: u64,
    /// The time the hypervisor ran something else while this virtual CPU had work.
    steal: u64,
}

impl CpuTicks {
    /// The CPU `/proc/stat` names `name` (`cpu1`; `cpu` for all of them).
    pub fn of(name: &str) -> anyhow::Result<Self> {
        let stat = std::fs::read_to_string("/proc/stat")?;
        let times: Vec<u64> = stat
            .lines()
            .find_map(|line| line.strip_prefix(name)?.strip_prefix(' '))
            .with_context(|| format!("no {name} in /proc/stat"))?
            .split_whitespace()
            .map(str::parse)
            .collect::<Result<_, _>>()?;
        // user nice system idle iowait irq softirq steal (guest time is counted in user).
        let total: u64 = times.iter().take(8).sum();
        let idle = times.get(3).copied().unwrap_or(0) + times.get(4).copied().unwrap_or(0);
        Ok(Self {
            busy: total - idle,
            total,
            steal: times.get(7).copied().unwrap_or(0),
        })
    }

    /// The share of the time since `earlier` that the CPU was busy.
    pub fn busy_since(&self, earlier: &Self) -> f64 {
        (self.busy - earlier.busy) as f64 / (self.total - earlier.total).max(1) as f64
    }

    /// The time stolen from the CPU since `earlier` (in whole clock ticks, 10 ms at 100 Hz).
    pub fn steal_since(&self, earlier: &Self) -> anyhow::Result<Duration> {
        ticks_to_time(self.steal - earlier.steal)
    }
}

/// The fields of `/proc/<pid>/stat` (numbered from 1, as in proc(5)) with a process's own CPU
/// time in clock ticks: utime and stime.
const USED: &[usize] = &[14, 15];

/// Those with the CPU time of its children that ended and were waited for: cutime and cstime.
const CHILDREN_USED: &[usize] = &[16, 17];

/// The sum of fields `numbers` of `/proc/<pid>/stat` (each from the 3rd on: the state, the
/// parent, ..., which follow the command name, which may hold spaces), read once.
fn stat_sum(pid: u32, numbers: &[usize]) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let (_, fields) = stat
        .rsplit_once(')')
        .with_context(|| format!("unexpected /proc/{pid}/stat"))?;
    let fields: Vec<&str> = fields.split_whitespace().collect();
    numbers.iter().try_fold(0, |sum, &n| {
        let field = fields
            .get(n - 3)
            .with_context(|| format!("short /proc/{pid}/stat"))?;
        Ok(sum + field.parse::<u64>()?)
    })
}

fn ticks_to_time(ticks: u64) -> anyhow::Result<Duration> {
    Ok(Duration::from_secs_f64(ticks as f64 / clock_ticks()?))
}

/// Clock ticks per second, the unit of `/proc` times: `getconf CLK_TCK`, asked once (a reading
/// of a database's tree reads dozens of processes).
fn clock_ticks() -> anyhow::Result<f64> {
    static TICKS: OnceLock<f64> = OnceLock::new();
    if let Some(&ticks) = TICKS.get() {
        return Ok(ticks);
    }
    let output = Command::new("getconf").arg("CLK_TCK").output()?;
    let ticks = String::from_utf8_lossy(&output.stdout).trim().parse()?;
    Ok(*TICKS.get_or_init(|| ticks))
}
