//! One chaos run: the cluster up, the clients and the nemesis together for some rounds, then
//! quiescence and the checker; the table printed; the verdict returned.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;
use sqlx::postgres::PgPoolOptions;

use crate::analysis::{self, Class};
use crate::checker::{self, Findings};
use crate::cluster::{Cluster, ClusterOptions, Startup};
use crate::nemesis::{self, Fault, FaultKind};
use crate::workload::{self, Call};

/// How a run is made.
#[derive(Debug, Clone)]
pub struct RunOptions {
    pub cluster: ClusterOptions,
    /// Client tasks (each its own merchant).
    pub clients: usize,
    /// Rounds of the nemesis schedule (about 100 s each).
    pub rounds: u32,
}

/// What a run ended with.
pub enum Outcome {
    /// The cluster could not be brought up here (packages missing, not root): why.
    Skipped(String),
    /// The table, and every violation (none: the run passed).
    Done {
        table: String,
        violations: Vec<String>,
    },
}

/// The binary `name` next to the running executable (target/debug/, or target/debug/deps/'s
/// parent for a test), unless `variable` names one.
pub fn sibling_binary(variable: &str, name: &str) -> anyhow::Result<PathBuf> {
    if let Some(path) = std::env::var_os(variable) {
        return Ok(PathBuf::from(path));
    }
    let exe = std::env::current_exe()?;
    exe.ancestors()
        .skip(1)
        .take(2)
        .map(|dir| dir.join(name))
        .find(|path| path.exists())
        .with_context(|| {
            format!(
                "no {name} next to {} (cargo build -p server --bin kaadxpay, or set {variable})",
                exe.display()
            )
        })
}

/// The cluster settings of a chaos run: the partner settles a transfer 4 s after accepting it,
/// later than a payout's retry after a timed-out call (2 s timeout, 0.5 s back-off), so that
/// the immature phase really makes duplicates for reconciliation to reverse (settled sooner,
/// the partner's webhook marks the payout paid before any retry).
pub fn cluster_env() -> Vec<(String, String)> {
    vec![("KAADXPAY_SIM_SETTLE_AFTER".into(), "4s".into())]
}

/// Brings the cluster up and runs the chaos; the cluster is brought down at the end unless
/// `options.cluster.keep`.
pub async fn run(options: RunOptions) -> anyhow::Result<Outcome> {
    let mut cluster = match Cluster::up(options.cluster.clone())? {
        Startup::Up(cluster) => cluster,
        Startup::Unavailable(reason) => return Ok(Outcome::Skipped(reason)),
    };
    let outcome = exercise(&cluster, &options).await;
    let failed = match &outcome {
        Ok(Outcome::Done { violations, .. }) => !violations.is_empty(),
        _ => true,
    };
    if failed {
        cluster.keep_logs();
    }
    outcome
}

/// The clients and the nemesis, then the checker, on a running cluster.
async fn exercise(cluster: &Cluster, options: &RunOptions) -> anyhow::Result<Outcome> {
    let pool = PgPoolOptions::new()
        .max_connections(2)
        .acquire_timeout(Duration::from_secs(30))
        .connect(cluster.url("DATABASE_URL"))
        .await?;
    let mut merchants = Vec::new();
    for index in 0..options.clients {
        merchants.push(workload::create_merchant(cluster, &format!("Chaos client {index}")).await?);
    }
    let merchant_ids: Vec<String> = merchants
        .iter()
        .map(|merchant| merchant.id.clone())
        .collect();

    let stop = Arc::new(AtomicBool::new(false));
    let clients: Vec<_> = merchants
        .into_iter()
        .enumerate()
        .map(|(index, merchant)| {
            tokio::spawn(workload::run_client(
                index,
                cluster.url("KAADXPAY_API_URL").to_owned(),
                cluster.url("KAADXPAY_RECEIVER_URL").to_owned(),
                merchant,
                stop.clone(),
            ))
        })
        .collect();
    let faults = nemesis::run(cluster, options.rounds).await;
    stop.store(true, Ordering::SeqCst);
    let mut calls = Vec::new();
    for client in clients {
        calls.extend(client.await?);
    }
    let faults = faults?;
    eprintln!("chaos: {} calls made; quiescing", calls.len());
    let reconciliations = checker::quiesce(cluster, &pool, &merchant_ids).await?;
    let findings = checker::check(cluster, &pool, &merchant_ids, &calls).await?;
    let (table, mut violations) = verdict(&calls, &faults, &findings, &reconciliations);
    if faults
        .iter()
        .any(|fault| fault.kind == FaultKind::PartnerImmature)
        && findings.duplicate_transfers == 0
    {
        violations
            .push("the immature partner made no duplicate: reconciliation went untested".into());
    }
    violations.extend(findings.violations.iter().cloned());
    if !violations.is_empty() {
        print_evidence(
            "app log lines at ERROR or WARN",
            &cluster.app_log_problems(),
        );
        print_evidence(
            "HAProxy's requests that did not end normally",
            &cluster.haproxy_abnormal_requests(),
        );
    }
    pool.close().await;
    Ok(Outcome::Done { table, violations })
}

/// The first [`EVIDENCE_LINES`] of `lines`, under what they are, for a failed run's report.
fn print_evidence(what: &str, lines: &[String]) {
    eprintln!("chaos: {what} (first {EVIDENCE_LINES} of {}):", lines.len());
    for line in lines.iter().take(EVIDENCE_LINES) {
        eprintln!("  {line}");
    }
}

const EVIDENCE_LINES: usize = 40;

fn seconds(duration: Duration) -> String {
    format!("{:.1} s", duration.as_secs_f64())
}

/// The table, and the violations the clients' view shows.
fn verdict(
    calls: &[Call],
    faults: &[Fault],
    findings: &Findings,
    reconciliations: &[String],
) -> (String, Vec<String>) {
    let mut violations = Vec::new();
    let attempts = || calls.iter().flat_map(|call| call.attempts.iter());
    let classes: Vec<Class> = attempts()
        .map(|attempt| analysis::classify(attempt, faults))
        .collect();
    let tally = analysis::tally(classes.iter());
    for (class, count) in &tally {
        if let Class::Unexpected(what) = class {
            violations.push(format!("{count} attempts answered {what}"));
        }
    }
    let stretches = analysis::failing_stretches(attempts());
    let longest = stretches
        .iter()
        .map(|stretch| stretch.length())
        .max()
        .unwrap_or_default();
    let leader_times: Vec<Duration> = faults
        .iter()
        .filter_map(|fault| fault.leader_after)
        .collect();
    let failover_time = faults
        .iter()
        .filter(|fault| fault.kind == FaultKind::Failover)
        .filter_map(|fault| fault.leader_after)
        .max()
        .unwrap_or_default();
    let limit = failover_time + Duration::from_secs(2);
    if longest > limit {
        violations.push(format!(
            "the longest failing stretch, {}, exceeds the failover time {} + 2 s",
            seconds(longest),
            seconds(failover_time)
        ));
    }
    let (p50, max) = analysis::p50_max(&analysis::leader_move_unavailability(&stretches, faults));
    let (leader_p50, leader_max) = analysis::p50_max(&leader_times);

    let mut fault_counts = std::collections::BTreeMap::new();
    for fault in faults {
        *fault_counts.entry(fault.kind.name()).or_insert(0) += 1;
    }
    let kinds = |class: &Class| tally.get(class).copied().unwrap_or_default();
    let unexpected: usize = tally
        .iter()
        .filter(|(class, _)| class.is_violation())
        .map(|(_, count)| count)
        .sum();
    let answered_500 = attempts()
        .filter(|attempt| {
            matches!(
                attempt.result,
                kaadxpay_client::AttemptResult::Answered { status: 500, .. }
            )
        })
        .count();
    let retried_calls = calls.iter().filter(|call| call.attempts.len() > 1).count();

    let mut table = String::new();
    let mut row = |name: &str, value: String| {
        let _ = writeln!(table, "| {name:<28} | {value} |");
    };
    row("what", "measured".into());
    row("----", "--------".into());
    row(
        "operations",
        format!(
            "{} orders, {} captures, {} payouts acknowledged ({} calls, {} attempts)",
            findings.orders,
            findings.captures,
            findings.payouts,
            calls.len(),
            classes.len()
        ),
    );
    row(
        "faults injected",
        fault_counts
            .iter()
            .map(|(kind, count)| format!("{kind} {count}"))
            .collect::<Vec<_>>()
            .join(", "),
    );
    row(
        "new leader after (Patroni)",
        format!(
            "p50 {}, max {} (failover max {})",
            seconds(leader_p50),
            seconds(leader_max),
            seconds(failover_time)
        ),
    );
    row(
        "failover unavailability",
        format!("p50 {}, max {}", seconds(p50), seconds(max)),
    );
    row(
        "longest failing stretch",
        format!("{} (limit {})", seconds(longest), seconds(limit)),
    );
    row(
        "retries",
        format!(
            "{} retried attempts over {retried_calls} calls: 503+Retry-After {}, 409 in progress {}, killed replica {}, other {unexpected}",
            classes.len() - kinds(&Class::Answered),
            kinds(&Class::Unavailable),
            kinds(&Class::InProgress),
            kinds(&Class::KilledReplica),
        ),
    );
    row("answers 500", answered_500.to_string());
    row(
        "partner",
        format!(
            "{} transfers, {} duplicates, {} reversal calls",
            findings.transfers, findings.duplicate_transfers, findings.reversal_calls
        ),
    );
    row(
        "events",
        format!(
            "{} (all at the receiver unless listed below)",
            findings.events
        ),
    );
    row("duplicates", findings.duplicates.to_string());
    row("lost", findings.lost.to_string());
    row("stuck", findings.stuck.to_string());
    row(
        "violations",
        (violations.len() + findings.violations.len()).to_string(),
    );
    for reconciliation in reconciliations {
        let _ = writeln!(table, "reconcile {}", reconciliation.replace('\n', " "));
    }
    (table, violations)
}

/// Where a run keeps its cluster: `KAADXPAY_CLUSTER_DIR`, else a folder of its own in /var/tmp.
pub fn scratch_dir() -> PathBuf {
    std::env::var_os("KAADXPAY_CLUSTER_DIR").map_or_else(
        || Path::new("/var/tmp").join(format!("kaadxpay-chaos-{}", std::process::id())),
        PathBuf::from,
    )
}
