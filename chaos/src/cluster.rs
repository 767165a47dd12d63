//! The cluster under test, driven through `deploy/cluster`: brought up in a scratch folder on
//! free ports, its components killed and started again, the partner's faults changed, the
//! Patroni leader asked, `kaadxpay` one-shot commands run against it, and brought down on drop
//! (keeping its logs in a private folder of their own when it failed).

use std::collections::HashMap;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::Duration;

use anyhow::{bail, Context};

/// What `deploy/cluster up` needs.
#[derive(Debug, Clone)]
pub struct ClusterOptions {
    /// The checkout whose `deploy/cluster` runs, and the script's working directory.
    pub checkout: PathBuf,
    /// The `kaadxpay` binary.
    pub kaadxpay_bin: PathBuf,
    /// The `webhook-receiver` binary.
    pub receiver_bin: PathBuf,
    /// The scratch folder (removed by `down`).
    pub dir: PathBuf,
    /// Keep the cluster running when this handle is dropped (to look at it afterwards).
    pub keep: bool,
    /// More environment for `deploy/cluster` (its `KAADXPAY_SIM_*` and serve settings).
    pub env: Vec<(String, String)>,
}

/// A running cluster.
pub struct Cluster {
    options: ClusterOptions,
    port_base: u16,
    /// `cluster.env`: the URLs of the API, the database, the partner, the receiver, …
    env: HashMap<String, String>,
    /// The serve replicas' environment (`conf/kaadxpay.env`), for one-shot commands.
    app_env: Vec<(String, String)>,
    /// `down --keep-logs` on drop: the logs outlive the cluster (after a failure).
    keep_logs: bool,
}

/// `deploy/cluster up`'s answer.
pub enum Startup {
    Up(Cluster),
    /// The Debian packages are missing and cannot be installed (not root): the reason.
    Unavailable(String),
}

/// The PostgreSQL nodes and the app replicas, as `deploy/cluster` names them.
pub const NODES: [&str; 2] = ["pg1", "pg2"];
pub const APPS: [&str; 3] = ["app1", "app2", "app3"];

/// The checkout this crate was built from.
pub fn this_checkout() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("chaos/ is in a checkout")
        .to_path_buf()
}

/// A base port with the 50 ports above it free (the cluster uses offsets up to 33).
fn free_port_base() -> anyhow::Result<u16> {
    (0..40)
        .map(|i| 25400 + i * 50)
        .find(|base| (*base..base + 50).all(|port| TcpListener::bind(("127.0.0.1", port)).is_ok()))
        .context("no block of 50 free ports between 25400 and 27400")
}

fn parse_env(text: &str) -> Vec<(String, String)> {
    text.lines()
        .filter_map(|line| line.split_once('='))
        .map(|(key, value)| (key.to_owned(), value.to_owned()))
        .collect()
}

impl Cluster {
    /// Brings the whole cluster up (installing Debian packages when missing, as root).
    pub fn up(options: ClusterOptions) -> anyhow::Result<Startup> {
        let port_base = free_port_base()?;
        let mut cluster = Cluster {
            options,
            port_base,
            env: HashMap::new(),
            app_env: Vec::new(),
            keep_logs: false,
        };
        let output = cluster.script(&["up"])?;
        match output.status.code() {
            Some(0) => {}
            Some(3) => {
                return Ok(Startup::Unavailable(
                    String::from_utf8_lossy(&output.stderr).trim().to_owned(),
                ))
            }
            _ => {
                // Brought down on drop, its logs kept: they say why.
                cluster.keep_logs = true;
                bail!(
                    "deploy/cluster up failed ({}):\n{}",
                    output.status,
                    String::from_utf8_lossy(&output.stderr)
                )
            }
        }
        let dir = &cluster.options.dir;
        cluster.env = parse_env(&std::fs::read_to_string(dir.join("cluster.env"))?)
            .into_iter()
            .collect();
        cluster.app_env = parse_env(&std::fs::read_to_string(dir.join("conf/kaadxpay.env"))?);
        Ok(Startup::Up(cluster))
    }

    fn script(&self, args: &[&str]) -> anyhow::Result<Output> {
        Command::new(self.options.checkout.join("deploy/cluster"))
            .current_dir(&self.options.checkout)
            .args(args)
            .env("KAADXPAY_CLUSTER_DIR", &self.options.dir)
            .env("KAADXPAY_CLUSTER_PORT_BASE", self.port_base.to_string())
            .env("KAADXPAY_BIN", &self.options.kaadxpay_bin)
            .env("KAADXPAY_RECEIVER_BIN", &self.options.receiver_bin)
            .envs(self.options.env.iter().map(|(k, v)| (k, v)))
            .output()
            .context("cannot run deploy/cluster")
    }

    fn script_ok(&self, args: &[&str]) -> anyhow::Result<()> {
        let output = self.script(args)?;
        if !output.status.success() {
            bail!(
                "deploy/cluster {} failed: {}",
                args.join(" "),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(())
    }

    /// A value of `cluster.env`, e.g. `KAADXPAY_API_URL`.
    pub fn url(&self, name: &str) -> &str {
        self.env
            .get(name)
            .unwrap_or_else(|| panic!("cluster.env has no {name}"))
    }

    pub fn dir(&self) -> &Path {
        &self.options.dir
    }

    /// SIGKILLs a component (for a PostgreSQL node: its Patroni and its postmaster).
    pub async fn kill(&self, name: &str) -> anyhow::Result<()> {
        self.blocking(&["kill", name]).await
    }

    /// Starts a component again and waits until it is up.
    pub async fn start(&self, name: &str) -> anyhow::Result<()> {
        self.blocking(&["start", name]).await
    }

    async fn blocking(&self, args: &[&str]) -> anyhow::Result<()> {
        let this = self.handle();
        let args: Vec<String> = args.iter().map(|arg| (*arg).to_owned()).collect();
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            this.script_ok(&args)
        })
        .await?
    }

    /// A second handle on the same cluster that never brings it down (for blocking calls).
    fn handle(&self) -> Cluster {
        Cluster {
            options: ClusterOptions {
                keep: true,
                ..self.options.clone()
            },
            port_base: self.port_base,
            env: self.env.clone(),
            app_env: self.app_env.clone(),
            keep_logs: false,
        }
    }

    /// Changes the partner simulator's faults (`PUT /_sim/config`), retrying for up to a
    /// minute: under load the simulator can be slow to answer (it syncs its ledger on every
    /// write).
    pub async fn partner_faults(&self, config: serde_json::Value) -> anyhow::Result<()> {
        let url = format!("{}/_sim/config", self.url("KAADXPAY_PARTNER_URL"));
        let client = reqwest::Client::new();
        let deadline = std::time::Instant::now() + Duration::from_secs(60);
        loop {
            let sent = client
                .put(&url)
                .json(&config)
                .timeout(Duration::from_secs(10))
                .send()
                .await
                .and_then(reqwest::Response::error_for_status);
            match sent {
                Ok(_) => return Ok(()),
                Err(err) if std::time::Instant::now() > deadline => {
                    return Err(err).context("the partner simulator's config")
                }
                Err(err) => eprintln!("chaos: PUT /_sim/config: {err}; again"),
            }
        }
    }

    /// Keeps the logs when the cluster is brought down (on drop): `down` moves them to a new
    /// private folder and says where.
    pub fn keep_logs(&mut self) {
        self.keep_logs = true;
    }

    fn patroni_url(&self, node: &str) -> &str {
        self.url(&format!("PATRONI_{}_URL", node.to_uppercase()))
    }

    /// Whether Patroni's REST `path` (`primary`, `sync`) answers 200 on `node`.
    pub async fn patroni_check(&self, node: &str, path: &str) -> bool {
        let url = format!("{}/{path}", self.patroni_url(node));
        reqwest::Client::new()
            .get(url)
            .timeout(Duration::from_secs(2))
            .send()
            .await
            .is_ok_and(|response| response.status().is_success())
    }

    /// The node Patroni reports as leader.
    pub async fn leader(&self) -> Option<&'static str> {
        for node in NODES {
            if self.patroni_check(node, "primary").await {
                return Some(node);
            }
        }
        None
    }

    /// `patronictl switchover` from `leader` to `candidate`.
    pub async fn switchover(&self, leader: &str, candidate: &str) -> anyhow::Result<()> {
        let config = self.url("PATRONI_CONFIG").to_owned();
        let args = [
            "-c",
            &config,
            "switchover",
            "--leader",
            leader,
            "--candidate",
            candidate,
            "--force",
        ]
        .map(str::to_owned);
        let output =
            tokio::task::spawn_blocking(move || Command::new("patronictl").args(&args).output())
                .await??;
        if !output.status.success() {
            bail!(
                "patronictl switchover failed: {}{}",
                String::from_utf8_lossy(&output.stdout),
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(())
    }

    /// Runs `kaadxpay args…` against the cluster (its database and partner); its stdout.
    pub async fn kaadxpay(&self, args: &[&str]) -> anyhow::Result<String> {
        let mut command = tokio::process::Command::new(&self.options.kaadxpay_bin);
        command
            .args(args)
            .envs(self.app_env.iter().map(|(k, v)| (k.as_str(), v.as_str())))
            .env("RUST_LOG", "warn");
        let output = command.output().await?;
        if !output.status.success() {
            bail!(
                "kaadxpay {} failed ({}): {}",
                args.join(" "),
                output.status,
                String::from_utf8_lossy(&output.stderr)
            );
        }
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    }

    /// HAProxy's log lines of HTTP requests that did not end normally (a termination state
    /// other than `----`: `SH` the replica closed before answering, `CD` the client went away,
    /// …), evidence for the report when an attempt lost its connection.
    pub fn haproxy_abnormal_requests(&self) -> Vec<String> {
        let log = std::fs::read_to_string(self.dir().join("log/haproxy.log")).unwrap_or_default();
        log.lines()
            .filter(|line| matches!(termination_state(line), Some(state) if state != "----"))
            .map(str::to_owned)
            .collect()
    }

    /// Lines of the app replicas' logs at level ERROR or WARN (evidence for the report).
    pub fn app_log_problems(&self) -> Vec<String> {
        APPS.iter()
            .flat_map(|app| {
                let log = std::fs::read_to_string(self.dir().join(format!("log/{app}.log")))
                    .unwrap_or_default();
                log.lines()
                    .filter(|line| {
                        line.contains(r#""level":"ERROR""#) || line.contains(r#""level":"WARN""#)
                    })
                    .map(|line| format!("{app}: {line}"))
                    .collect::<Vec<_>>()
            })
            .collect()
    }
}

/// The termination state of an HTTP log line of HAProxy's (`option httplog`): the field after
/// the captured request and response cookies (`- -` when none is captured).
fn termination_state(line: &str) -> Option<&str> {
    let (_, after_cookies) = line.split_once(" - - ")?;
    let state = after_cookies.split(' ').next()?;
    (state.len() == 4).then_some(state)
}

impl Drop for Cluster {
    fn drop(&mut self) {
        if self.options.keep {
            return;
        }
        let args: &[&str] = if self.keep_logs {
            &["down", "--keep-logs"]
        } else {
            &["down"]
        };
        match self.script(args) {
            Ok(output) if output.status.success() && !self.keep_logs => {}
            Ok(output) => eprint!("{}", String::from_utf8_lossy(&output.stderr)),
            Err(err) => eprintln!("chaos: {err}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::termination_state;

    #[test]
    fn a_requests_termination_state_is_read_from_its_http_log_line() {
        let normal = r#"127.0.0.1:41937 [07/Dec/2026:00:43:56.954] api app/app1 0/0/0/5/5 201 560 - - ---- 3/3/0/0/0 0/0 "POST /v1/payouts HTTP/1.1""#;
        let cut = r#"127.0.0.1:41938 [07/Dec/2026:00:43:57.021] api app/app2 0/0/0/-1/3 502 204 - - SH-- 3/3/0/0/0 0/0 "POST /v1/payouts HTTP/1.1""#;
        let state_change =
            "[WARNING]  (12) : Server app/app3 is DOWN, reason: Layer4 connection problem.";
        assert_eq!(termination_state(normal), Some("----"));
        assert_eq!(termination_state(cut), Some("SH--"));
        assert_eq!(termination_state(state_change), None);
    }
}
