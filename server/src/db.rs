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
        let pool = connect(&url, settings.db_pool_size).await?;
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

pub async fn connect(url: &str, size: u32) -> anyhow::Result<PgPool> {
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(Duration::from_secs(10))
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
