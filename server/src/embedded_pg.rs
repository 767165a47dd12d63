//! The embedded PostgreSQL: a private cluster started from the machine's own PostgreSQL binaries
//! when no `DATABASE_URL` is given (crates such as `postgresql_embedded` or `pg-embed` download
//! binaries at run or build time, which a closed network cannot do, so this is our own).
//!
//! PostgreSQL refuses to run as root; as root the binaries run as the `postgres` user through
//! `runuser`. A cluster already running in the data folder (another `kaadxpay` command) is
//! attached to rather than started twice. A watcher process stops the cluster we started once
//! our process is gone, even when it was killed with `SIGKILL`.

use std::fs;
use std::net::TcpListener;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context};

const INSTALL_HINT: &str = "No PostgreSQL server binaries (initdb, pg_ctl, postgres) were found: install them (`apt-get install postgresql`) or set DATABASE_URL to a running PostgreSQL.";

/// Whether the cluster must survive a crash (`serve`) or is thrown away after the run (tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Durability {
    Durable,
    Ephemeral,
}

pub struct EmbeddedPostgres {
    bin_dir: PathBuf,
    data_dir: PathBuf,
    port: u16,
    /// False when we attached to a cluster another process started.
    owned: bool,
}

impl EmbeddedPostgres {
    /// Starts (or attaches to) the cluster in `data_dir`, creating it on first use.
    pub fn start(data_dir: &Path, durability: Durability) -> anyhow::Result<Self> {
        let bin_dir = find_bin_dir().context(INSTALL_HINT)?;
        fs::create_dir_all(data_dir)
            .with_context(|| format!("cannot create {}", data_dir.display()))?;
        let data_dir = data_dir.canonicalize()?;
        let mut cluster = Self {
            bin_dir,
            data_dir,
            port: 0,
            owned: true,
        };
        if let Some(port) = cluster.running_port() {
            cluster.port = port;
            cluster.owned = false;
            return Ok(cluster);
        }
        if !cluster.data_dir.join("PG_VERSION").exists() {
            cluster.init()?;
        }
        cluster.port = free_port()?;
        let mut options = format!(
            "-p {} -c listen_addresses=127.0.0.1 -c unix_socket_directories='' -c max_connections=300",
            cluster.port
        );
        if durability == Durability::Ephemeral {
            options.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off");
        }
        let log = cluster.data_dir.join("server.log");
        let started = cluster
            .pg_command("pg_ctl")
            .args([
                "-D".as_ref(),
                cluster.data_dir.as_os_str(),
                "-l".as_ref(),
                log.as_os_str(),
            ])
            .args(["-o", &options, "-w", "-t", "60", "start"])
            .stdout(Stdio::null())
            .status()
            .context("cannot run pg_ctl")?;
        if !started.success() {
            bail!(
                "the embedded PostgreSQL did not start; see {}",
                log.display()
            );
        }
        cluster.spawn_watcher(durability)?;
        Ok(cluster)
    }

    pub fn url(&self, database: &str) -> String {
        format!("postgres://postgres@127.0.0.1:{}/{database}", self.port)
    }

    pub fn port(&self) -> u16 {
        self.port
    }

    /// Stops the cluster if we started it.
    pub fn stop(&self) {
        if self.owned {
            let _ = self
                .pg_command("pg_ctl")
                .arg("-D")
                .arg(&self.data_dir)
                .args(["-m", "fast", "-w", "stop"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .status();
        }
    }

    fn init(&self) -> anyhow::Result<()> {
        if running_as_root() {
            let postgres = nix::unistd::User::from_name("postgres")?
                .context("running as root needs a `postgres` user to run PostgreSQL as")?;
            nix::unistd::chown(&self.data_dir, Some(postgres.uid), Some(postgres.gid))?;
        }
        let output = self
            .pg_command("initdb")
            .arg("-D")
            .arg(&self.data_dir)
            .args([
                "-U",
                "postgres",
                "--auth=trust",
                "--encoding=UTF8",
                "--no-locale",
                "--no-sync",
            ])
            .output()
            .context("cannot run initdb")?;
        if !output.status.success() {
            bail!("initdb failed: {}", String::from_utf8_lossy(&output.stderr));
        }
        Ok(())
    }

    /// The port of a live cluster in the data folder, read from its `postmaster.pid`.
    fn running_port(&self) -> Option<u16> {
        let pid_file = fs::read_to_string(self.data_dir.join("postmaster.pid")).ok()?;
        let running = self
            .pg_command("pg_ctl")
            .arg("-D")
            .arg(&self.data_dir)
            .arg("status")
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status()
            .ok()?
            .success();
        running.then(|| pid_file.lines().nth(3)?.trim().parse().ok())?
    }

    /// A process that waits for ours to end, then stops the cluster (and, when ephemeral,
    /// deletes it), unless another process has restarted it meanwhile.
    fn spawn_watcher(&self, durability: Durability) -> anyhow::Result<()> {
        let pid_file = fs::read_to_string(self.data_dir.join("postmaster.pid"))?;
        let postmaster = pid_file.lines().next().unwrap_or_default().trim();
        let stop = shell_words(&self.pg_command("pg_ctl"));
        let dir = self.data_dir.display();
        let cleanup = match durability {
            Durability::Ephemeral => format!("; rm -rf '{dir}'"),
            Durability::Durable => String::new(),
        };
        let script = format!(
            "while kill -0 {parent} 2>/dev/null; do sleep 1; done; \
             if [ \"$(head -n 1 '{dir}/postmaster.pid' 2>/dev/null)\" = '{postmaster}' ]; then \
               {stop} -D '{dir}' -m fast -w stop >/dev/null 2>&1{cleanup}; fi",
            parent = std::process::id(),
        );
        Command::new("sh")
            .args(["-c", &script])
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .process_group(0)
            .spawn()
            .context("cannot start the embedded PostgreSQL's watcher")?;
        Ok(())
    }

    /// A PostgreSQL program, run as the `postgres` user when we are root.
    fn pg_command(&self, program: &str) -> Command {
        let program = self.bin_dir.join(program);
        if running_as_root() {
            let mut command = Command::new("runuser");
            command.args(["-u", "postgres", "--"]).arg(program);
            command
        } else {
            Command::new(program)
        }
    }
}

fn shell_words(command: &Command) -> String {
    std::iter::once(command.get_program())
        .chain(command.get_args())
        .map(|word| format!("'{}'", word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

fn running_as_root() -> bool {
    nix::unistd::geteuid().is_root()
}

/// The newest `/usr/lib/postgresql/N/bin`, or the folder of an `initdb` on the `PATH`.
fn find_bin_dir() -> Option<PathBuf> {
    let has_server = |dir: &Path| dir.join("initdb").exists() && dir.join("pg_ctl").exists();
    let mut versions: Vec<(u32, PathBuf)> = fs::read_dir("/usr/lib/postgresql")
        .into_iter()
        .flatten()
        .flatten()
        .filter_map(|entry| {
            let version = entry.file_name().to_str()?.parse().ok()?;
            Some((version, entry.path().join("bin")))
        })
        .filter(|(_, dir)| has_server(dir))
        .collect();
    versions.sort();
    versions.pop().map(|(_, dir)| dir).or_else(|| {
        std::env::var_os("PATH").and_then(|path| {
            std::env::split_paths(&path)
                .find(|dir| has_server(dir))
                .and_then(|dir| {
                    dir.join("initdb")
                        .canonicalize()
                        .ok()?
                        .parent()
                        .map(Path::to_path_buf)
                })
        })
    })
}

fn free_port() -> anyhow::Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}
