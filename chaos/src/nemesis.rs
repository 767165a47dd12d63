//! The nemesis: faults injected on a bounded schedule, one at a time, each recorded with its
//! start, its end and (for the database) how long Patroni took to have a new writable leader.

use std::time::{Duration, Instant, SystemTime};

use rand::seq::SliceRandom;
use serde_json::json;

use crate::cluster::{Cluster, APPS, NODES};

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum FaultKind {
    /// SIGKILL of a random app replica, started again at once.
    ReplicaKill,
    /// `patronictl switchover` to the other node.
    Switchover,
    /// SIGKILL of the leader's Patroni and postmaster; the node is started again and rejoins
    /// (pg_rewind) as the synchronous standby.
    Failover,
    /// The partner makes transfers but never answers (`timeout_rate` 1.0).
    PartnerCutOff,
    /// The partner ignores idempotency keys (immature mode) while cut off, then answers again.
    PartnerImmature,
}

impl FaultKind {
    pub fn name(self) -> &'static str {
        match self {
            Self::ReplicaKill => "replica kill",
            Self::Switchover => "switchover",
            Self::Failover => "failover",
            Self::PartnerCutOff => "partner cut off",
            Self::PartnerImmature => "partner immature",
        }
    }

    /// Whether the fault moves the database leader.
    pub fn moves_leader(self) -> bool {
        matches!(self, Self::Switchover | Self::Failover)
    }
}

/// One injected fault.
#[derive(Debug, Clone)]
pub struct Fault {
    pub kind: FaultKind,
    pub started_at: SystemTime,
    /// When the faulty part was whole again (replica restarted, node rejoined, partner back).
    pub ended_at: SystemTime,
    /// For a leader move: from the fault to the new leader answering `/primary` (Patroni's REST).
    pub leader_after: Option<Duration>,
    pub detail: String,
}

/// One round of the schedule: each fault at its offset from the round's start (at the
/// earliest: faults run one after the other). A round lasts about 100 s.
pub const ROUND: [(u64, FaultKind); 6] = [
    (8, FaultKind::ReplicaKill),
    (18, FaultKind::PartnerCutOff),
    (32, FaultKind::Switchover),
    (50, FaultKind::PartnerImmature),
    (66, FaultKind::Failover),
    (92, FaultKind::ReplicaKill),
];
pub const ROUND_SECONDS: u64 = 100;

/// Polls `check` every 100 ms for at most `within`; whether it came true.
async fn wait_until<F, Fut>(within: Duration, check: F) -> bool
where
    F: Fn() -> Fut,
    Fut: std::future::Future<Output = bool>,
{
    let deadline = Instant::now() + within;
    loop {
        if check().await {
            return true;
        }
        if Instant::now() > deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// Runs `rounds` rounds of [`ROUND`]; returns the faults injected.
pub async fn run(cluster: &Cluster, rounds: u32) -> anyhow::Result<Vec<Fault>> {
    let mut faults = Vec::new();
    for _ in 0..rounds {
        let round_start = Instant::now();
        for (offset, kind) in ROUND {
            let at = round_start + Duration::from_secs(offset);
            tokio::time::sleep_until(at.into()).await;
            let fault = inject(cluster, kind).await?;
            eprintln!(
                "chaos: {} done in {:.1} s ({})",
                kind.name(),
                fault
                    .ended_at
                    .duration_since(fault.started_at)
                    .unwrap_or_default()
                    .as_secs_f64(),
                fault.detail
            );
            faults.push(fault);
        }
        tokio::time::sleep_until((round_start + Duration::from_secs(ROUND_SECONDS)).into()).await;
    }
    Ok(faults)
}

async fn inject(cluster: &Cluster, kind: FaultKind) -> anyhow::Result<Fault> {
    let started_at = SystemTime::now();
    let started = Instant::now();
    let mut leader_after = None;
    let detail = match kind {
        FaultKind::ReplicaKill => {
            let app = *APPS
                .choose(&mut rand::thread_rng())
                .expect("three replicas");
            cluster.kill(app).await?;
            cluster.start(app).await?;
            format!("{app} killed and restarted")
        }
        FaultKind::PartnerCutOff => {
            cluster.partner_faults(json!({"timeout_rate": 1.0})).await?;
            tokio::time::sleep(Duration::from_secs(10)).await;
            cluster.partner_faults(json!({"timeout_rate": 0.0})).await?;
            "timeout_rate 1.0 for 10 s".to_owned()
        }
        FaultKind::PartnerImmature => {
            cluster
                .partner_faults(json!({"mode": "immature", "timeout_rate": 1.0}))
                .await?;
            tokio::time::sleep(Duration::from_secs(6)).await;
            cluster.partner_faults(json!({"timeout_rate": 0.0})).await?;
            tokio::time::sleep(Duration::from_secs(6)).await;
            cluster.partner_faults(json!({"mode": "mature"})).await?;
            "immature: cut off 6 s, then answering 6 s".to_owned()
        }
        FaultKind::Switchover | FaultKind::Failover => {
            let leader = cluster
                .leader()
                .await
                .ok_or_else(|| anyhow::anyhow!("no leader"))?;
            let other = *NODES
                .iter()
                .find(|node| **node != leader)
                .expect("two nodes");
            if kind == FaultKind::Switchover {
                cluster.switchover(leader, other).await?;
            } else {
                cluster.kill(leader).await?;
            }
            let promoted = wait_until(Duration::from_secs(60), || {
                cluster.patroni_check(other, "primary")
            })
            .await;
            anyhow::ensure!(promoted, "{other} did not become the leader within 60 s");
            leader_after = Some(started.elapsed());
            if kind == FaultKind::Failover {
                cluster.start(leader).await?;
            }
            let rejoined = wait_until(Duration::from_secs(90), || {
                cluster.patroni_check(leader, "sync")
            })
            .await;
            anyhow::ensure!(
                rejoined,
                "{leader} did not rejoin as sync standby within 90 s"
            );
            format!(
                "{leader} -> {other}, leader after {:.1} s",
                leader_after.unwrap_or_default().as_secs_f64()
            )
        }
    };
    Ok(Fault {
        kind,
        started_at,
        ended_at: SystemTime::now(),
        leader_after,
        detail,
    })
}
