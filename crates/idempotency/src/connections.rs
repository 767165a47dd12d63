//! The connections the one-commit path's statements run on: each lent for one statement and
//! taken back without a round trip.
//!
//! sqlx's pool pings every connection it takes back, to drain what a statement cancelled
//! half-way may have left on it: a round trip per request. Here a connection goes back to the
//! pool only when its statement ran to its end; one whose statement was cancelled (its request
//! dropped) or broke is closed, and never lent again.

use std::time::Duration;

use deadpool::managed::{self, Metrics, Object, PoolError, QueueMode, RecycleResult};
use sqlx::postgres::{PgArguments, PgConnectOptions, PgPool, PgRow};
use sqlx::query::Query;
use sqlx::{Connection, PgConnection, Postgres};

/// A connection idle this long is pinged before it is lent again.
const PING_IDLE_AFTER: Duration = Duration::from_secs(30);

/// Connections for one statement each, opened as the engine's pool opens its own.
#[derive(Clone)]
pub(crate) struct StatementConnections {
    pool: managed::Pool<Connector>,
}

impl StatementConnections {
    /// As many connections as `pool` may hold, with its connect options (as its own are
    /// opened) and waited for as long as it would be.
    pub(crate) fn beside(pool: &PgPool) -> Self {
        let wait = pool.options().get_acquire_timeout();
        let connector = Connector {
            options: (*pool.connect_options()).clone(),
        };
        let pool = managed::Pool::builder(connector)
            .max_size(pool.options().get_max_connections() as usize)
            // The connection used last is lent first: its statements are prepared.
            .queue_mode(QueueMode::Lifo)
            .wait_timeout(Some(wait))
            .create_timeout(Some(wait))
            .runtime(deadpool::Runtime::Tokio1)
            .build()
            .expect("the pool has a runtime for its timeouts");
        Self { pool }
    }

    /// Runs `query` on a lent connection and gives its one row. A pool that lends none within
    /// the wait is [`sqlx::Error::PoolTimedOut`], as the engine's pool says it.
    pub(crate) async fn fetch_one(
        &self,
        query: Query<'_, Postgres, PgArguments>,
    ) -> sqlx::Result<PgRow> {
        let mut lent = Lent(Some(self.pool.get().await.map_err(unavailable)?));
        let row = query.fetch_one(lent.connection()).await;
        match &row {
            Err(error) if broke(error) => {
                // The others idle beside it are likely as dead (a failover): they are closed
                // too, so that the retry opens a new one instead of meeting them.
                self.pool.retain(|_, _| false);
            }
            _ => lent.give_back(),
        }
        row
    }
}

/// Whether `error` is a connection that broke under a statement (not a pool that had none
/// free): its socket failed, or its backend was terminated (SQLSTATE class 57P, operator
/// intervention, as a server shutting down or `pg_terminate_backend` says) or lost it (class
/// 08, connection exception).
pub(crate) fn broke(error: &sqlx::Error) -> bool {
    match error {
        sqlx::Error::Io(_) | sqlx::Error::Protocol(_) => true,
        sqlx::Error::Database(error) => error
            .code()
            .is_some_and(|code| code.starts_with("57P") || code.starts_with("08")),
        _ => false,
    }
}

fn unavailable(error: PoolError<sqlx::Error>) -> sqlx::Error {
    match error {
        PoolError::Backend(error) => error,
        PoolError::Closed => sqlx::Error::PoolClosed,
        PoolError::Timeout(_) => sqlx::Error::PoolTimedOut,
        other => sqlx::Error::Configuration(other.to_string().into()),
    }
}

/// A connection lent for one statement: closed when dropped, unless given back.
struct Lent(Option<Object<Connector>>);

impl Lent {
    fn connection(&mut self) -> &mut PgConnection {
        self.0.as_mut().expect("lent until given back or dropped")
    }

    /// Returns the connection to the pool, its statement having run to its end.
    fn give_back(mut self) {
        drop(self.0.take());
    }
}

impl Drop for Lent {
    fn drop(&mut self) {
        if let Some(connection) = self.0.take() {
            // Out of the pool, and closed with its socket.
            drop(Object::take(connection));
        }
    }
}

/// Opens connections, and pings one idle for [`PING_IDLE_AFTER`] before it is lent again.
struct Connector {
    options: PgConnectOptions,
}

impl managed::Manager for Connector {
    type Type = PgConnection;
    type Error = sqlx::Error;

    async fn create(&self) -> sqlx::Result<PgConnection> {
        PgConnection::connect_with(&self.options).await
    }

    async fn recycle(
        &self,
        connection: &mut PgConnection,
        metrics: &Metrics,
    ) -> RecycleResult<sqlx::Error> {
        if metrics.last_used() >= PING_IDLE_AFTER {
            connection.ping().await?;
        }
        Ok(())
    }
}
