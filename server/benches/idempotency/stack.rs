//! The system under test: a durable embedded PostgreSQL in a throw-away folder under the
//! project's `.data/`, the real `kaadxpay serve` binary on it, and a merchant to call it as.

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use server::auth::{self, NewMerchant};
use server::embedded_pg::{Durability, EmbeddedPostgres};
use sqlx::PgPool;

pub struct Stack {
    pub base_url: String,
    pub db_url: String,
    pub pool: PgPool,
    pub merchant: NewMerchant,
    server: Child,
    cluster: EmbeddedPostgres,
    data_dir: PathBuf,
}

impl Stack {
    pub async fn start() -> anyhow::Result<Self> {
        let data_dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.data"))
            .join(format!("bench-{}", std::process::id()));
        // Durable: fsync and synchronous commit as in production, unlike the tests' cluster.
        let cluster = EmbeddedPostgres::start(&data_dir, Durability::Durable)?;
        let db_url = cluster.url("postgres");
        let addr = format!("127.0.0.1:{}", free_port()?);
        let server = Command::new(env!("CARGO_BIN_EXE_kaadxpay"))
            .args(["serve", "--addr", &addr])
            .env("DATABASE_URL", &db_url)
            .env("RUST_LOG", "warn")
            .stdout(Stdio::null())
            .spawn()
            .context("cannot start kaadxpay serve")?;
        let base_url = format!("http://{addr}");
        wait_ready(&base_url).await?;
        let pool = server::db::connect(&db_url, 4, std::time::Duration::from_secs(5)).await?;
        let merchant = auth::create_merchant(&pool, "Benchmark Merchant").await?;
        Ok(Self {
            base_url,
            db_url,
            pool,
            merchant,
            server,
            cluster,
            data_dir,
        })
    }

    /// A new-key `POST /v1/orders` as the benchmark merchant, the body `post_orders.lua` sends.
    pub fn post_order(&self, client: &reqwest::Client, key: &str) -> reqwest::RequestBuilder {
        client
            .post(format!("{}/v1/orders", self.base_url))
            .bearer_auth(&self.merchant.api_key)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(r#"{"amount": 1000, "currency": "EUR", "description": "benchmark order"}"#)
    }

    /// Stops the server and the cluster and deletes the cluster's folder.
    pub async fn stop(mut self) {
        let _ = self.server.kill();
        let _ = self.server.wait();
        self.pool.close().await;
        self.cluster.stop();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

async fn wait_ready(base_url: &str) -> anyhow::Result<()> {
    let client = reqwest::Client::new();
    let deadline = Instant::now() + Duration::from_secs(60);
    while Instant::now() < deadline {
        let ready = client.get(format!("{base_url}/readyz")).send().await;
        if ready.is_ok_and(|response| response.status().is_success()) {
            return Ok(());
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
    bail!("kaadxpay serve was not ready within 60 s")
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}
