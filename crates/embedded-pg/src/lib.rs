//! The embedded PostgreSQL: a private cluster started from the machine's own PostgreSQL binaries
//! when no `DATABASE_URL` is given (crates such as `postgresql_embedded` or `pg-embed` download
//! binaries at run or build time, which a closed network cannot do, so this is our own).
//!
//! The cluster accepts connections on a Unix socket in a 0700 folder inside its 0700 data folder
//! only, never on TCP, so no other local user can connect as its superuser.
//!
//! PostgreSQL refuses to run as root; as root the binaries run as the `postgres` user through
//! `runuser`, from `/`. When `postgres` cannot reach the data folder (a checkout under `/root`),
//! or its socket path would be too long for the kernel, the cluster is kept in a private folder
//! of its own under `/var/tmp` instead, one per data folder, and a log line says where. A
//! cluster already running in the data folder (another `kaadxpay` command) is attached to
//! rather than started twice. A watcher process stops the cluster we started once our process
//! is gone, even when it was killed with `SIGKILL`.

use std::fs;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use anyhow::{bail, Context};
use nix::unistd::{Gid, Uid};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use sha2::{Digest, Sha256};

/// The folder, inside the data folder, that holds the cluster's Unix socket.
const SOCKET_FOLDER: &str = "socket";
/// Where a cluster is kept when its data folder does not suit (see [`cluster_home`]).
const RELOCATION_ROOT: &str = "/var/tmp";
/// The longest socket path the kernel accepts: `sun_path` is 108 bytes, its NUL included.
const MAX_SOCKET_PATH: usize = 107;

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
        let requested = data_dir.canonicalize()?;
        let mut cluster = Self {
            bin_dir,
            data_dir: cluster_home(&requested)?,
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
        let socket_dir = cluster.socket_dir();
        private_folder(&socket_dir)?;
        // No TCP: the port only names the socket file (`.s.PGSQL.<port>`) in the socket folder.
        cluster.port = free_port()?;
        let mut options = format!(
            "-p {} -c listen_addresses='' -c unix_socket_directories='{}' -c max_connections=300",
            cluster.port,
            socket_dir.display()
        );
        match durability {
            Durability::Ephemeral => {
                options.push_str(" -c fsync=off -c synchronous_commit=off -c full_page_writes=off")
            }
            // As deploy/patroni.yml: full-page images compressed, and checkpoints (each of
            // which makes the next write to every page log the whole page) less often.
            Durability::Durable => options.push_str(
                " -c wal_compression=zstd -c checkpoint_timeout=15min -c max_wal_size=2GB",
            ),
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
        cluster.spawn_watcher(durability, &requested)?;
        Ok(cluster)
    }

    /// The URL of `database` through the cluster's socket (libpq's form, which sqlx and
    /// PostgreSQL's own programs such as `pgbench` read), as the superuser `postgres`.
    pub fn url(&self, database: &str) -> String {
        self.url_as("postgres", database)
    }

    /// [`EmbeddedPostgres::url`] as the role `role` (every local role is trusted).
    pub fn url_as(&self, role: &str, database: &str) -> String {
        let socket_dir = self.socket_dir();
        let socket_dir = socket_dir.to_string_lossy();
        let host = utf8_percent_encode(&socket_dir, NON_ALPHANUMERIC);
        format!(
            "postgres://{role}@localhost/{database}?host={host}&port={}",
            self.port
        )
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

    fn socket_dir(&self) -> PathBuf {
        self.data_dir.join(SOCKET_FOLDER)
    }

    fn init(&self) -> anyhow::Result<()> {
        let (uid, gid) = cluster_owner()?;
        nix::unistd::chown(&self.data_dir, Some(uid), Some(gid))?;
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
    /// `requested` is the data folder we were given, deleted too when the cluster lives elsewhere.
    fn spawn_watcher(&self, durability: Durability, requested: &Path) -> anyhow::Result<()> {
        let pid_file = fs::read_to_string(self.data_dir.join("postmaster.pid"))?;
        let postmaster = pid_file.lines().next().unwrap_or_default().trim();
        let stop = shell_words(&self.pg_command("pg_ctl"));
        let dir = self.data_dir.display();
        let cleanup = match durability {
            Durability::Ephemeral => format!("; rm -rf '{dir}' '{}'", requested.display()),
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
            .current_dir("/")
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
        as_cluster_owner(self.bin_dir.join(program))
    }
}

/// `program`, run as the `postgres` user when we are root, from `/`, which it can enter
/// (initdb and postgres fail in a working directory they cannot).
fn as_cluster_owner(program: impl AsRef<std::ffi::OsStr>) -> Command {
    let mut command = if running_as_root() {
        let mut command = Command::new("runuser");
        command.args(["-u", "postgres", "--"]).arg(program);
        command
    } else {
        Command::new(program)
    };
    command.current_dir("/");
    command
}

/// Who owns and runs the cluster: `postgres` when we are root, else ourselves.
fn cluster_owner() -> anyhow::Result<(Uid, Gid)> {
    if running_as_root() {
        let postgres = nix::unistd::User::from_name("postgres")?
            .context("running as root needs a `postgres` user to run PostgreSQL as")?;
        Ok((postgres.uid, postgres.gid))
    } else {
        Ok((nix::unistd::geteuid(), nix::unistd::getegid()))
    }
}

/// Where the cluster of the data folder `requested` lives: there, unless its owner cannot reach
/// it or its socket path would be too long; then in `/var/tmp/kaadxpay-<hash of the folder>`.
fn cluster_home(requested: &Path) -> anyhow::Result<PathBuf> {
    let parent = requested.parent().unwrap_or(Path::new("/"));
    let longest_socket = requested
        .join(SOCKET_FOLDER)
        .join(format!(".s.PGSQL.{}", u16::MAX));
    let reason = if !owner_can_enter(parent) {
        "the postgres user cannot enter its folder"
    } else if longest_socket.as_os_str().len() > MAX_SOCKET_PATH {
        "its socket path would be too long"
    } else {
        return Ok(requested.to_path_buf());
    };
    let hash = hex::encode(Sha256::digest(requested.as_os_str().as_bytes()));
    let home = Path::new(RELOCATION_ROOT).join(format!("kaadxpay-{}", &hash[..16]));
    private_folder(&home)?;
    tracing::info!(
        "the embedded PostgreSQL for {} lives in {} ({reason})",
        requested.display(),
        home.display()
    );
    Ok(home)
}

/// Whether the cluster's owner can enter `folder` (and so every folder above it).
fn owner_can_enter(folder: &Path) -> bool {
    as_cluster_owner("test")
        .arg("-x")
        .arg(folder)
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|status| status.success())
}

/// Creates `folder` for the cluster's owner alone (0700), or checks that it already is: a
/// folder another user made in a shared place such as `/var/tmp` is refused, not used.
fn private_folder(folder: &Path) -> anyhow::Result<()> {
    let (uid, gid) = cluster_owner()?;
    match fs::DirBuilder::new().mode(0o700).create(folder) {
        Ok(()) => nix::unistd::chown(folder, Some(uid), Some(gid))?,
        Err(error) if error.kind() == ErrorKind::AlreadyExists => {}
        Err(error) => {
            return Err(error).with_context(|| format!("cannot create {}", folder.display()))
        }
    }
    let metadata = fs::symlink_metadata(folder)?;
    if !metadata.is_dir() || metadata.uid() != uid.as_raw() || metadata.mode() & 0o077 != 0 {
        bail!(
            "{} must be a folder only its owner (uid {uid}) can use (mode 0700); move it away",
            folder.display()
        );
    }
    Ok(())
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
