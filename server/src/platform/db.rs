//! The database: the pool, the migrations (embedded from `migrations/`, applied as the owner
//! role of `KAADXPAY_MIGRATE_DATABASE_URL` when it is set), and the choice between
//! `DATABASE_URL` and the embedded PostgreSQL, which serves as the restricted role of
//! `deploy/roles.sql`, as a hardened deployment does.

use std::path::Path;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::LazyLock;
use std::time::{Duration, Instant};

use anyhow::Context;
use sqlx::migrate::Migrator;
use sqlx::postgres::{PgConnectOptions, PgPool, PgPoolOptions};
use sqlx::Connection;

use kaadxpay_embedded_pg::{Durability, EmbeddedPostgres};

pub static MIGRATOR: Migrator = sqlx::migrate!("../migrations");

/// The role `serve` may connect as, which cannot change or delete audit entries, and the script
/// that makes it and gives it its rights (run as the owner, after the migrations).
pub const SERVER_ROLE: &str = "kaadxpay_app";
const SERVER_ROLE_SCRIPT: &str = include_str!("../../../deploy/roles.sql");

/// An open database, and the embedded cluster behind it when there is one.
pub struct Database {
    pub pool: PgPool,
    pub url: String,
    pub embedded: Option<EmbeddedPostgres>,
}

impl Database {
    /// Connects to `DATABASE_URL`, or starts the embedded cluster, and applies the migrations
    /// (as `KAADXPAY_MIGRATE_DATABASE_URL`'s role when it is set; in the embedded cluster as
    /// `postgres`, which then sets up [`SERVER_ROLE`], the pool's role). Without `url`, the
    /// cluster keeps its files in `data_dir`; the pool holds `pool_size` connections.
    pub async fn open(
        url: Option<&str>,
        owner_url: Option<&str>,
        data_dir: &Path,
        pool_size: u32,
        acquire_timeout: Duration,
    ) -> anyhow::Result<Self> {
        let (url, owner_url, embedded) = match url {
            Some(url) => (url.to_owned(), owner_url.unwrap_or(url).to_owned(), None),
            None => {
                let cluster =
                    EmbeddedPostgres::start(&data_dir.join("postgres"), Durability::Durable)?;
                let url = cluster.url_as(SERVER_ROLE, "postgres");
                (url, cluster.url("postgres"), Some(cluster))
            }
        };
        let mut owner = sqlx::PgConnection::connect_with(&options(&owner_url)?)
            .await
            .with_context(|| format!("cannot connect to the database at {}", redact(&owner_url)))?;
        MIGRATOR
            .run(&mut owner)
            .await
            .context("cannot apply the migrations")?;
        if embedded.is_some() {
            sqlx::raw_sql(SERVER_ROLE_SCRIPT)
                .execute(&mut owner)
                .await
                .context("cannot set up the server's role (deploy/roles.sql)")?;
        }
        owner.close().await?;
        let pool = connect(&url, pool_size, acquire_timeout).await?;
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
///
/// A connection is lent without a ping (sqlx pings before lending by default: a round trip per
/// request), except one idle for [`PING_IDLE_AFTER`] or lent while connections are breaking
/// ([`connection_broke`]): after a failover every idle connection is dead, and pinging them
/// then replaces them before requests meet them. The one-commit path also retries its statement
/// once on a broken connection (safe: a retry replays if the first attempt committed). A
/// backend whose client vanished mid-statement (a killed process) notices within
/// [`CLIENT_CHECK_INTERVAL`] and rolls back, so its locks do not outlive it.
pub async fn connect(url: &str, size: u32, acquire_timeout: Duration) -> anyhow::Result<PgPool> {
    let options =
        options(url)?.options([("client_connection_check_interval", CLIENT_CHECK_INTERVAL)]);
    PgPoolOptions::new()
        .max_connections(size)
        .acquire_timeout(acquire_timeout)
        .test_before_acquire(false)
        .before_acquire(|conn, meta| {
            Box::pin(async move {
                if meta.idle_for >= PING_IDLE_AFTER || connections_breaking() {
                    conn.ping().await?;
                }
                Ok(true)
            })
        })
        .connect_with(options)
        .await
        .with_context(|| format!("cannot connect to the database at {}", redact(url)))
}

/// The connection options `url` says.
fn options(url: &str) -> anyhow::Result<PgConnectOptions> {
    PgConnectOptions::from_str(url).with_context(|| format!("invalid database URL {}", redact(url)))
}

/// A connection idle this long is pinged before it is lent.
pub const PING_IDLE_AFTER: Duration = Duration::from_secs(30);

/// How long after a broken connection every connection is pinged before it is lent.
const PING_AFTER_BREAKAGE: Duration = Duration::from_secs(10);

/// How often a backend checks, while it executes, that its client is still there.
const CLIENT_CHECK_INTERVAL: &str = "1s";

/// When a connection last broke, in milliseconds since [`EPOCH`] (0: never).
static LAST_BREAKAGE: AtomicU64 = AtomicU64::new(0);
static EPOCH: LazyLock<Instant> = LazyLock::new(Instant::now);

/// Tells the pools that a connection broke (an I/O or protocol error on it): for a while,
/// every connection is pinged before it is lent.
pub fn connection_broke() {
    let since = EPOCH.elapsed().as_millis() as u64;
    LAST_BREAKAGE.store(since.max(1), Ordering::Relaxed);
}

fn connections_breaking() -> bool {
    let last = LAST_BREAKAGE.load(Ordering::Relaxed);
    // A breakage in the clock's first millisecond is stored as 1 (0 means never): the clock
    // may still read 0, so the difference saturates.
    let since = (EPOCH.elapsed().as_millis() as u64).saturating_sub(last);
    last != 0 && since < PING_AFTER_BREAKAGE.as_millis() as u64
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

/// `value`, read from `column`, as a `T`: for a row a checked macro reads, what
/// `#[sqlx(try_from = "String")]` does for a `FromRow` one (a value `T` refuses is the same
/// `ColumnDecode` error, with its message).
pub fn try_from_column<T>(column: &str, value: String) -> sqlx::Result<T>
where
    T: TryFrom<String>,
    T::Error: std::fmt::Display,
{
    T::try_from(value).map_err(|err| sqlx::Error::ColumnDecode {
        index: column.to_owned(),
        source: err.to_string().into(),
    })
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The first breakage a process sees can come in the first millisecond of its clock, and be
    /// stored as 1 ms: asking right after must not take 1 from 0 (a panic in debug builds,
    /// answered as a `500` during a failover).
    #[test]
    fn a_breakage_in_the_clocks_first_millisecond_is_seen() {
        connection_broke();
        assert!(connections_breaking());
    }
}
