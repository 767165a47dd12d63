//! The short chaos run: one round of the nemesis (about 100 s: two replica kills, a
//! switchover, a failover, the partner cut off and immature) against the cluster of `deploy/`
//! with eight retrying clients, then the checker. Skipped, saying why, only where the Debian
//! packages are missing and cannot be installed (not root).

use chaos::cluster::{this_checkout, ClusterOptions};
use chaos::run::{cluster_env, run, scratch_dir, sibling_binary, Outcome, RunOptions};

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn nothing_is_lost_or_doubled_through_failovers_kills_and_partner_faults() {
    let options = RunOptions {
        cluster: ClusterOptions {
            checkout: this_checkout(),
            kaadxpay_bin: sibling_binary("KAADXPAY_BIN", "kaadxpay").expect("the kaadxpay binary"),
            receiver_bin: env!("CARGO_BIN_EXE_webhook-receiver").into(),
            dir: scratch_dir(),
            keep: std::env::var_os("KAADXPAY_CHAOS_KEEP").is_some(),
            env: cluster_env(),
        },
        clients: 8,
        rounds: 1,
    };
    match run(options).await.expect("the chaos run completes") {
        Outcome::Skipped(reason) => {
            eprintln!(
                "SKIPPED: the chaos test needs etcd, Patroni, HAProxy and PostgreSQL 15: {reason}"
            );
        }
        Outcome::Done { table, violations } => {
            println!("{table}");
            assert!(
                violations.is_empty(),
                "violations:\n{}",
                violations.join("\n")
            );
        }
    }
}
