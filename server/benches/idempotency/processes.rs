//! What `/proc` says about processes and CPUs: the CPU time a process has used (and the time of
//! its children that ended), its parent and children, and how busy a CPU has been. The
//! benchmark reads them around a load run to give CPU per request, of the server and of the
//! database, and the share of the system's core the run left idle.

use std::process::Command;
use std::time::Duration;

use anyhow::Context;

/// The CPU time (user and system) process `pid` has used so far.
pub fn cpu_time(pid: u32) -> anyhow::Result<Duration> {
    let ticks = stat_field(pid, 14)? + stat_field(pid, 15)?;
    ticks_to_time(ticks)
}

/// The CPU time of a process tree one level deep: `pid`, the children it runs now, and those
/// that ended and were waited for (the kernel adds their time to `pid`'s `cutime` and `cstime`).
/// A database cluster, given its postmaster: every backend and background process.
pub fn tree_cpu_time(pid: u32) -> anyhow::Result<Duration> {
    let ended = || stat_field(pid, 16).and_then(|user| Ok(user + stat_field(pid, 17)?));
    loop {
        let before = ended()?;
        let running = children(pid)?
            .into_iter()
            .filter_map(|child| cpu_time(child).ok())
            .sum::<Duration>();
        // A child that ended while its siblings were read has its time in neither sum, or in
        // both: read them again (a backend of a pool ending, an autovacuum worker of seconds).
        if ended()? == before {
            return Ok(cpu_time(pid)? + running + ticks_to_time(before)?);
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
    Ok(stat_field(pid, 4)? as u32)
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
        })
    }

    /// The share of the time since `earlier` that the CPU was busy.
    pub fn busy_since(&self, earlier: &Self) -> f64 {
        (self.busy - earlier.busy) as f64 / (self.total - earlier.total).max(1) as f64
    }
}

/// Field `n` (numbered from 1, as in proc(5)) of `/proc/<pid>/stat`, from the 3rd on (the
/// state, the parent, ...), which follow the command name (which may hold spaces).
fn stat_field(pid: u32, n: usize) -> anyhow::Result<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    let (_, fields) = stat
        .rsplit_once(')')
        .with_context(|| format!("unexpected /proc/{pid}/stat"))?;
    let field = fields
        .split_whitespace()
        .nth(n - 3)
        .with_context(|| format!("short /proc/{pid}/stat"))?;
    Ok(field.parse()?)
}

fn ticks_to_time(ticks: u64) -> anyhow::Result<Duration> {
    Ok(Duration::from_secs_f64(ticks as f64 / clock_ticks()?))
}

/// Clock ticks per second, the unit of `/proc` times.
fn clock_ticks() -> anyhow::Result<f64> {
    let output = Command::new("getconf").arg("CLK_TCK").output()?;
    Ok(String::from_utf8_lossy(&output.stdout).trim().parse()?)
}
