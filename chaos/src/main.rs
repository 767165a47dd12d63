//! `chaos --minutes N [--clients C]`: the soak run. The same chaos as the test, for about N
//! minutes of faults (rounds of about 100 s); prints the table and exits non-zero on any
//! violation.

use clap::Parser;

use chaos::cluster::{this_checkout, ClusterOptions};
use chaos::nemesis::ROUND_SECONDS;
use chaos::run::{cluster_env, run, scratch_dir, sibling_binary, Outcome, RunOptions};

#[derive(Parser)]
struct Args {
    /// How long the nemesis runs, in minutes (rounded up to whole rounds of 100 s).
    #[arg(long, default_value_t = 10)]
    minutes: u64,
    /// Client tasks, each a merchant of its own.
    #[arg(long, default_value_t = 8)]
    clients: usize,
    /// Leave the cluster running afterwards (bring it down with `deploy/cluster down`).
    #[arg(long)]
    keep: bool,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    let options = RunOptions {
        cluster: ClusterOptions {
            checkout: this_checkout(),
            kaadxpay_bin: sibling_binary("KAADXPAY_BIN", "kaadxpay")?,
            receiver_bin: sibling_binary("KAADXPAY_RECEIVER_BIN", "webhook-receiver")?,
            dir: scratch_dir(),
            keep: args.keep,
            env: cluster_env(),
        },
        clients: args.clients,
        rounds: u32::try_from((args.minutes * 60).div_ceil(ROUND_SECONDS).max(1))?,
    };
    match run(options).await? {
        Outcome::Skipped(reason) => anyhow::bail!("cannot run the cluster here: {reason}"),
        Outcome::Done { table, violations } => {
            println!("{table}");
            for violation in &violations {
                println!("VIOLATION: {violation}");
            }
            anyhow::ensure!(violations.is_empty(), "{} violations", violations.len());
            Ok(())
        }
    }
}
