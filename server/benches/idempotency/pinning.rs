//! Keeping the load generators off the system under test's core, so that on a two-core machine
//! an overload is the server's, not a fight between the generator and the server for one CPU:
//! PostgreSQL (its postmaster and every backend, present and forked later) and each `kaadxpay
//! serve` (started there: [`on_system_cpu`]) on [`SYSTEM_CPU`], this process (wrk, pgbench and
//! the open loop run in it or are started from it, and inherit its CPU) on [`GENERATOR_CPU`].
//! Done with `taskset`; without it, or without a second core, the run is unpinned and its rows
//! say so.

use std::process::Command;

use crate::processes::{self, children};
use crate::tools;

const SYSTEM_CPU: &str = "1";
const GENERATOR_CPU: &str = "0";

/// How the run is laid out on the CPUs, for the table.
pub struct Pinning {
    pub pinned: bool,
    pub description: String,
}

/// Pins the cluster whose postmaster is `postmaster` and the server `server_pid` to the
/// system's CPU and this process to the generator's; or says why not.
pub fn pin(postmaster: u32, server_pid: u32) -> Pinning {
    let outcome = match unpinnable() {
        Some(reason) => Err(anyhow::anyhow!(reason)),
        None => pin_all(postmaster, server_pid),
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

fn pin_all(postmaster: u32, server_pid: u32) -> anyhow::Result<()> {
    let mut system = vec![postmaster, server_pid];
    system.extend(children(postmaster)?);
    for pid in system {
        taskset(SYSTEM_CPU, pid)?;
    }
    taskset(GENERATOR_CPU, std::process::id())
}

/// The CPU the system under test runs on, as `/proc/stat` names it (`cpu1`), or all of them
/// (`cpu`) on a machine that cannot be pinned.
pub fn system_cpu() -> String {
    stat_name(SYSTEM_CPU)
}

/// The CPU the generators run on, as [`system_cpu`] names it.
pub fn generator_cpu() -> String {
    stat_name(GENERATOR_CPU)
}

fn stat_name(cpu: &str) -> String {
    match unpinnable() {
        None => format!("cpu{cpu}"),
        Some(_) => "cpu".to_owned(),
    }
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

/// Why this machine cannot be pinned, if it cannot. It counts the machine's CPUs, not those this
/// process may run on: once [`pin`] has put it on the generator's core, a server started after
/// (the request log's second) must still be born on the system's.
fn unpinnable() -> Option<String> {
    let cpus = processes::online_cpus();
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
