//! The database: the pool, the migrations (embedded from `migrations/`), and the choice between
//! `DATABASE_URL` and the embedded PostgreSQL.

use std::time::Duration;

use anyhow::Context;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgPool, PgPoolOptions};

use crate::config::Settings;
use crate::embedded_pg::{Durability, EmbeddedPostgres};

pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// An open database, and the embedded cluster behind it when there is one.
pub struct Database {
    pub pool: PgPool,
    pub url: String,
    pub embedded: Option<EmbeddedPostgres>,
}

impl Database {
    /// Connects to `DATABASE_URL`, or starts the embedded cluster, and applies the migrations.
    pub async fn open(settings: &Settings) -> anyhow::Result<Self> {
        let (url, embedded) = match &settings.database_url {
            Some(url) => (url.clone(), None),
            None => {
                let cluster = EmbeddedPostgres::start(
                    &settings.data_dir.join("postgres"),
                    Durability::Durable,
                )?;
                (cluster.url("postgres"), Some(cluster))
            }
        };
        let pool = connect(&url, settings.db_pool_size, settings.db_acquire_timeout).await?;
        MIGRATOR
            .run(&pool)
            .await
            .context("cannot apply the migrations")?;
        Ok(Self {
            pool,
            url,
            embedded,
        })
    }

    pub async fn close(self) {
        self.pool.close().await;
        if let Some(cluster) = &self.embedded {
            cluster.stop();
        }
    }
}

/// A pool of `size` connections whose callers wait at most `acquire_timeout` for one.
pub async fn connect(url: &str, size: u32, acquire_timeout: Duration) -> anyhow::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(acquire_timeout)
        .connect(url)
        .await
        .with_context(|| format!("cannot connect to the database at {}", redact(url)))
}

/// The URL without its password, for messages.
fn redact(url: &str) -> String {
    match (url.find("://"), url.rfind('@')) {
        (Some(scheme), Some(at)) if at > scheme => format!("{}://…{}", &url[..scheme], &url[at..]),
        _ => url.to_owned(),
    }
}

/// Whether every migration this build knows is applied (for `/readyz`).
pub async fn migrations_applied(pool: &PgPool) -> bool {
    let latest = MIGRATOR
        .iter()
        .map(|migration| migration.version)
        .max()
        .unwrap_or(0);
    let applied: Result<Option<i64>, _> =
        sqlx::query_scalar("SELECT max(version) FROM _sqlx_migrations WHERE success")
            .fetch_one(pool)
            .await;
    matches!(applied, Ok(Some(version)) if version >= latest)
}

/// A small pool beside `pool`, on the same database, for work that must not queue behind the
/// requests that exhaust `pool`: the writes that settle a request (marking a claimed key
/// failed), and the API-key revocation listener, which keeps its connection. Nobody waits on it
/// but that work, so it may wait longer than a request would: a settle that gives up leaves the
/// key to the sweeper, a whole lease later.
pub fn reserve(pool: &PgPool, size: u32) -> PgPool {
    PgPoolOptions::new()
        .max_connections(size)
        // One kept open, so that settling seldom waits for a new connection's handshake.
        .min_connections(1)
        .acquire_timeout(RESERVE_ACQUIRE_TIMEOUT)
        .connect_lazy_with((*pool.connect_options()).clone())
}

const RESERVE_ACQUIRE_TIMEOUT: Duration = Duration::from_secs(10);
