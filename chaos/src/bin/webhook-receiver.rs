//! `webhook-receiver --addr A --log F`: records every webhook it receives (see `chaos::receiver`).

use std::net::SocketAddr;
use std::path::PathBuf;

use clap::Parser;

#[derive(Parser)]
struct Args {
    #[arg(long, default_value = "127.0.0.1:4100")]
    addr: SocketAddr,
    /// The JSON-lines record of what was received.
    #[arg(long, default_value = "received.jsonl")]
    log: PathBuf,
}

#[tokio::main]
async fn main() -> anyhow::Result<()> {
    let args = Args::parse();
    chaos::receiver::serve(args.addr, args.log).await
}
