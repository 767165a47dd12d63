//! Keeping the load generators off the system under test's core, so that on a two-core machine
//! an overload is the server's, not a fight between the generator and the server for one CPU:
//! PostgreSQL (its postmaster and every backend, present and forked later) and each `kaadxpay
//! serve` (started there: [`on_system_cpu`]) on [`SYSTEM_CPU`], this process (wrk, pgbench and
//! the open loop run in it or are started from it, and inherit its CPU) on [`GENERATOR_CPU`].
//! Done with `taskset`; without it, or without a second core, the run is unpinned and its rows
//! say so.

use std::process::Command;

use anyhow::Context;

use crate::tools;

const SYSTEM_CPU: &str = "1";
const GENERATOR_CPU: &str = "0";

/// How the run is laid out on the CPUs, for the table.
pub struct Pinning {
    pub pinned: bool,
    pub description: String,
}

/// Pins the cluster whose backend is `backend_pid` and the server `server_pid` to the system's
/// CPU and this process to the generator's; or says why not.
pub fn pin(backend_pid: u32, server_pid: u32) -> Pinning {
    let outcome = match unpinnable() {
        Some(reason) => Err(anyhow::anyhow!(reason)),
        None => pin_all(backend_pid, server_pid),
    };
    match outcome {
        Ok(()) => Pinning {
            pinned: true,
            description: format!(
                "servers (born there) and PostgreSQL on CPU {SYSTEM_CPU}, generators on CPU {GENERATOR_CPU} (taskset)"
            ),
        },
        Err(error) => Pinning {
            pinned: false,
            description: format!("UNPINNED: {error:#}"),
        },
    }
}

fn pin_all(backend_pid: u32, server_pid: u32) -> anyhow::Result<()> {
    let postmaster = parent(backend_pid)?;
    let mut system = vec![postmaster, server_pid];
    system.extend(children(postmaster)?);
    for pid in system {
        taskset(SYSTEM_CPU, pid)?;
    }
    taskset(GENERATOR_CPU, std::process::id())
}

/// The command that starts `program` (a server) on the system's CPU, when the machine can be
/// pinned at all. Born there, its runtime sizes itself to the one core it has, as it would on a
/// machine of one core; pinned after its start, it would keep a worker thread per core of the
/// machine time-sharing one, parking and waking a thread about twice per request.
pub fn on_system_cpu(program: &str) -> Command {
    match unpinnable() {
        None => {
            let mut command = Command::new("taskset");
            command.args(["-c", SYSTEM_CPU, program]);
            command
        }
        Some(_) => Command::new(program),
    }
}

/// Why this machine cannot be pinned, if it cannot.
fn unpinnable() -> Option<String> {
    let cpus = std::thread::available_parallelism().map_or(1, usize::from);
    if cpus < 2 {
        return Some(format!("{cpus} CPU available, no second core to pin to"));
    }
    tools::on_path("taskset")
        .is_none()
        .then(|| "taskset is not installed (util-linux)".to_owned())
}

/// Every thread of `pid` on `cpu`.
fn taskset(cpu: &str, pid: u32) -> anyhow::Result<()> {
    tools::run(Command::new("taskset").args(["-a", "-p", "-c", cpu, &pid.to_string()]))?;
    Ok(())
}

/// The parent of `pid`, from `/proc/<pid>/stat`.
fn parent(pid: u32) -> anyhow::Result<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    stat.rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1)?.parse().ok())
        .with_context(|| format!("no parent in /proc/{pid}/stat"))
}

/// The processes whose parent is `pid`.
fn children(pid: u32) -> anyhow::Result<Vec<u32>> {
    Ok(std::fs::read_dir("/proc")?
        .filter_map(|entry| entry.ok()?.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&child| parent(child).is_ok_and(|of| of == pid))
        .collect())
}
