//! The system under test: a durable embedded PostgreSQL in a throw-away folder under the
//! project's `.data/` (with `pg_stat_statements` preloaded when the installation has it), the
//! real `kaadxpay serve` binary on it, and a merchant to call it as.

use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use anyhow::{bail, Context};
use kaadxpay_embedded_pg::{Durability, EmbeddedPostgres};
use server::accounts::auth::{self, NewMerchant};
use sqlx::PgPool;

use crate::{pinning, processes};

/// What the cost windows send under each new key.
#[derive(Debug, Clone, Copy)]
pub enum Keyed<'a> {
    /// An order, the body `post_orders.lua` sends.
    Order,
    /// A refund of one cent of the captured order `order` (`ord_…`).
    Refund { order: &'a str },
}

impl Keyed<'_> {
    /// `order` or `refund`, for its keys.
    pub fn name(self) -> &'static str {
        match self {
            Keyed::Order => "order",
            Keyed::Refund { .. } => "refund",
        }
    }
}

/// The body of every new-key `POST /v1/orders` (the one `post_orders.lua` sends).
pub const ORDER_BODY: &str =
    r#"{"amount": 1000, "currency": "EUR", "description": "benchmark order"}"#;
const REFUND_BODY: &str = r#"{"amount": 1, "destination": {"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"}}"#;

pub struct Stack {
    pub base_url: String,
    pub db_url: String,
    pub pool: PgPool,
    pub merchant: NewMerchant,
    /// Whether `pg_stat_statements` counts the statements (see [`crate::database::statements`]).
    pub statement_stats: bool,
    pub server: Server,
    /// The cluster's postmaster, the parent of all its processes.
    pub postmaster: u32,
    cluster: EmbeddedPostgres,
    data_dir: PathBuf,
}

/// What a new-key `POST /v1/orders` to the main server is, written as raw HTTP/1.1 bytes.
#[derive(Clone)]
pub struct RawOrder {
    /// `host:port`.
    pub address: String,
    api_key: String,
}

impl RawOrder {
    /// Writes the whole request under `key` into `request`, in place of what it held (no
    /// allocation once it has grown to a request's size).
    pub fn write(&self, request: &mut Vec<u8>, key: std::fmt::Arguments<'_>) {
        use std::io::Write;
        request.clear();
        write!(
            request,
            "POST /v1/orders HTTP/1.1\r\nHost: {}\r\nAuthorization: Bearer {}\r\n\
             Content-Type: application/json\r\nIdempotency-Key: {key}\r\n\
             Content-Length: {}\r\n\r\n{ORDER_BODY}",
            self.address,
            self.api_key,
            ORDER_BODY.len()
        )
        .expect("a Vec takes every write");
    }
}

/// A `kaadxpay serve` process, killed when dropped.
pub struct Server {
    pub base_url: String,
    child: Child,
}

impl Server {
    /// Starts `kaadxpay serve` on `db_url` and waits until it is ready.
    pub async fn start(db_url: &str) -> anyhow::Result<Self> {
        Self::start_with(db_url, &[]).await
    }

    /// [`Server::start`] with settings `env` as well (e.g. the request log switched off).
    pub async fn start_with(db_url: &str, env: &[(&str, &str)]) -> anyhow::Result<Self> {
        let addr = format!("127.0.0.1:{}", free_port()?);
        let child = pinning::on_system_cpu(env!("CARGO_BIN_EXE_kaadxpay"))
            .args(["serve", "--addr", &addr])
            .env("DATABASE_URL", db_url)
            // Any key: the benchmark seals no secret, but `serve` on a database needs one.
            .env("KAADXPAY_SECRETS_KEY", "42".repeat(32))
            .env("RUST_LOG", "warn")
            // The payout worker idle: the benchmark pays nothing out, and the refunds it makes
            // stay `pending`, so that their rows are the request's cost alone (the partner leg
            // is the worker's, as a payout's is).
            .env("KAADXPAY_PAYOUT_INTERVAL", "1h")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .spawn()
            .context("cannot start kaadxpay serve")?;
        let server = Self {
            base_url: format!("http://{addr}"),
            child,
        };
        wait_ready(&server.base_url).await?;
        Ok(server)
    }

    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Stack {
    /// Where the benchmark's cluster keeps its files (`.data/bench-<pid>`).
    pub fn data_dir(&self) -> &Path {
        &self.data_dir
    }

    pub async fn start() -> anyhow::Result<Self> {
        let data_dir = PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../.data"))
            .join(format!("bench-{}", std::process::id()));
        // Durable: fsync and synchronous commit as in production, unlike the tests' cluster.
        let (cluster, statement_stats) = start_cluster(&data_dir).await?;
        let db_url = cluster.url("postgres");
        let server = Server::start(&db_url).await?;
        let pool = server::platform::db::connect(&db_url, 4, Duration::from_secs(5)).await?;
        let merchant = auth::create_merchant(&pool, "Benchmark Merchant", auth::Mode::Test).await?;
        let backend: i32 = sqlx::query_scalar("SELECT pg_backend_pid()")
            .fetch_one(&pool)
            .await?;
        let postmaster = processes::parent(backend as u32)?;
        Ok(Self {
            base_url: server.base_url.clone(),
            db_url,
            pool,
            merchant,
            statement_stats,
            server,
            postmaster,
            cluster,
            data_dir,
        })
    }

    /// A `POST` of `command` under `key` as the benchmark merchant to `base_url`.
    pub fn post_to(
        &self,
        base_url: &str,
        client: &reqwest::Client,
        key: &str,
        command: Keyed<'_>,
    ) -> reqwest::RequestBuilder {
        let (path, body) = match command {
            Keyed::Order => ("/v1/orders".to_owned(), ORDER_BODY),
            Keyed::Refund { order } => (format!("/v1/orders/{order}/refunds"), REFUND_BODY),
        };
        client
            .post(format!("{base_url}{path}"))
            .bearer_auth(&self.merchant.api_key)
            .header("content-type", "application/json")
            .header("idempotency-key", key)
            .body(body)
    }

    /// New-key `POST /v1/orders` as the benchmark merchant to the main server, as raw
    /// HTTP/1.1 bytes (the open loop's).
    pub fn raw_order(&self) -> RawOrder {
        RawOrder {
            address: self.base_url.trim_start_matches("http://").to_owned(),
            api_key: self.merchant.api_key.clone(),
        }
    }

    /// A new-key `POST /v1/orders` to the main server, the body `post_orders.lua` sends.
    pub fn post_order(&self, client: &reqwest::Client, key: &str) -> reqwest::RequestBuilder {
        self.post_to(&self.base_url, client, key, Keyed::Order)
    }

    /// Stops the server and the cluster and deletes the cluster's folder.
    pub async fn stop(self) {
        drop(self.server);
        self.pool.close().await;
        self.cluster.stop();
        let _ = std::fs::remove_dir_all(&self.data_dir);
    }
}

/// Starts the cluster and, when the installation ships `pg_stat_statements` but does not
/// preload it, preloads it with `ALTER SYSTEM` and a restart. Returns whether it counts.
async fn start_cluster(data_dir: &Path) -> anyhow::Result<(EmbeddedPostgres, bool)> {
    let cluster = EmbeddedPostgres::start(data_dir, Durability::Durable)?;
    let pool =
        server::platform::db::connect(&cluster.url("postgres"), 1, Duration::from_secs(5)).await?;
    let available: bool = sqlx::query_scalar(
        "SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'pg_stat_statements')",
    )
    .fetch_one(&pool)
    .await?;
    let preloaded: String = sqlx::query_scalar("SHOW shared_preload_libraries")
        .fetch_one(&pool)
        .await?;
    if !available {
        pool.close().await;
        return Ok((cluster, false));
    }
    let cluster = if preloaded.contains("pg_stat_statements") {
        pool.close().await;
        cluster
    } else {
        sqlx::query("ALTER SYSTEM SET shared_preload_libraries = 'pg_stat_statements'")
            .execute(&pool)
            .await?;
        pool.close().await;
        cluster.stop();
        EmbeddedPostgres::start(data_dir, Durability::Durable)?
    };
    let pool =
        server::platform::db::connect(&cluster.url("postgres"), 1, Duration::from_secs(5)).await?;
    sqlx::query("CREATE EXTENSION IF NOT EXISTS pg_stat_statements")
        .execute(&pool)
        .await?;
    pool.close().await;
    Ok((cluster, true))
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
    bail!("kaadxpay serve at {base_url} was not ready within 60 s")
}

fn free_port() -> std::io::Result<u16> {
    Ok(std::net::TcpListener::bind("127.0.0.1:0")?
        .local_addr()?
        .port())
}
