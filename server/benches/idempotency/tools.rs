//! Finding the external programs the benchmark drives (`wrk`, `pgbench`), installing `wrk`
//! from Debian when it is missing and we are root, running them and reading their output.

use std::path::PathBuf;
use std::process::{Command, Output};

use anyhow::{bail, Context};

/// `wrk` on the `PATH`, installed with `apt-get` first when missing and run as root.
pub fn wrk() -> anyhow::Result<PathBuf> {
    if let Some(path) = on_path("wrk") {
        return Ok(path);
    }
    if !nix::unistd::geteuid().is_root() {
        bail!("wrk is not installed: `apt-get install wrk`");
    }
    eprintln!("installing wrk (apt-get install -y wrk)...");
    let installed = Command::new("apt-get")
        .args(["install", "-y", "wrk"])
        .env("DEBIAN_FRONTEND", "noninteractive")
        .status()?;
    if !installed.success() {
        bail!("apt-get install wrk failed");
    }
    on_path("wrk").context("wrk is still not on the PATH")
}

/// The `pgbench` beside the running server's own binaries (its `pg_config` `BINDIR`, so the
/// versions match), or else the one on the `PATH`.
pub async fn pgbench(pool: &sqlx::PgPool) -> anyhow::Result<PathBuf> {
    let bin_dir: Option<String> =
        sqlx::query_scalar("SELECT setting FROM pg_config WHERE name = 'BINDIR'")
            .fetch_optional(pool)
            .await?;
    bin_dir
        .map(|dir| PathBuf::from(dir).join("pgbench"))
        .filter(|path| path.is_file())
        .or_else(|| on_path("pgbench"))
        .context("pgbench was not found: `apt-get install postgresql-client`")
}

pub fn on_path(program: &str) -> Option<PathBuf> {
    std::env::split_paths(&std::env::var_os("PATH")?)
        .map(|dir| dir.join(program))
        .find(|path| path.is_file())
}

/// Runs `command` and returns its standard output, or fails with its standard error.
pub fn run(command: &mut Command) -> anyhow::Result<String> {
    let Output {
        status,
        stdout,
        stderr,
    } = command
        .output()
        .with_context(|| format!("cannot run {:?}", command.get_program()))?;
    let stdout = String::from_utf8_lossy(&stdout).into_owned();
    if !status.success() {
        bail!(
            "{:?} failed ({status}): {}{}",
            command.get_program(),
            stdout,
            String::from_utf8_lossy(&stderr)
        );
    }
    Ok(stdout)
}

/// The value of `key=value` in the first line starting with `tag`.
pub fn field(output: &str, tag: &str, key: &str) -> anyhow::Result<f64> {
    let line = output
        .lines()
        .find(|line| line.starts_with(tag))
        .with_context(|| format!("no `{tag}` line in:\n{output}"))?;
    line.split_whitespace()
        .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
        .with_context(|| format!("no `{key}=` in `{line}`"))?
        .parse()
        .with_context(|| format!("`{key}` is not a number in `{line}`"))
}
