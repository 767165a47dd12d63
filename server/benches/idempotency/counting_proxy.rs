//! A counting layer between a `kaadxpay serve` and PostgreSQL: a Unix-socket proxy that
//! counts round trips, i.e. how often a client sends after the server last spoke on its
//! connection. That counts what `pg_stat_statements` cannot see, such as the pool's ping
//! (a bare `Sync`) before handing out a connection, and counts a pipeline as one.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Context;
use percent_encoding::{percent_decode_str, utf8_percent_encode, NON_ALPHANUMERIC};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// The port named in the proxy's socket file (`.s.PGSQL.<port>`); nothing listens on TCP.
const PORT: u16 = 5432;

pub struct CountingProxy {
    dir: PathBuf,
    round_trips: Arc<AtomicU64>,
    task: JoinHandle<()>,
}

impl CountingProxy {
    /// Listens in a fresh folder and forwards every connection to the socket `upstream_url`
    /// (libpq form, `?host=<folder>&port=<port>`) names.
    pub fn start(upstream_url: &str) -> anyhow::Result<Self> {
        let upstream = socket_path(upstream_url)?;
        let dir = std::env::temp_dir().join(format!("kaadxpay-bench-proxy-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let listener = UnixListener::bind(dir.join(format!(".s.PGSQL.{PORT}")))?;
        let round_trips = Arc::new(AtomicU64::new(0));
        let counter = round_trips.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let counter = counter.clone();
                tokio::spawn(async move {
                    if let Ok(server) = UnixStream::connect(&upstream).await {
                        forward(client, server, counter).await;
                    }
                });
            }
        });
        Ok(Self {
            dir,
            round_trips,
            task,
        })
    }

    /// The URL of `database` through the proxy.
    pub fn url(&self, database: &str) -> String {
        let host = utf8_percent_encode(&self.dir.to_string_lossy(), NON_ALPHANUMERIC).to_string();
        format!("postgres://postgres@localhost/{database}?host={host}&port={PORT}")
    }

    /// Round trips counted so far, over every connection.
    pub fn round_trips(&self) -> u64 {
        self.round_trips.load(Ordering::SeqCst)
    }
}

impl Drop for CountingProxy {
    fn drop(&mut self) {
        self.task.abort();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// Copies both ways; a client write that follows a server write (or opens the connection)
/// starts a round trip. The client only speaks again once it has read the server's answer,
/// which was forwarded after `server_spoke` was set, so no round trip is missed.
async fn forward(client: UnixStream, server: UnixStream, round_trips: Arc<AtomicU64>) {
    let server_spoke = AtomicBool::new(true);
    let (client_read, client_write) = client.into_split();
    let (server_read, server_write) = server.into_split();
    let requests = pump(client_read, server_write, || {
        if server_spoke.swap(false, Ordering::SeqCst) {
            round_trips.fetch_add(1, Ordering::SeqCst);
        }
    });
    let answers = pump(server_read, client_write, || {
        server_spoke.store(true, Ordering::SeqCst)
    });
    tokio::join!(requests, answers);
}

/// Copies `from` to `to` until either ends, calling `before_write` for each chunk.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut before_write: impl FnMut(),
) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        before_write();
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// `<host>/.s.PGSQL.<port>` from a libpq-style URL's `host` and `port` parameters.
fn socket_path(url: &str) -> anyhow::Result<PathBuf> {
    let query = url
        .split_once('?')
        .map(|(_, query)| query)
        .unwrap_or_default();
    let param = |name: &str| {
        query.split('&').find_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            (key == name).then(|| percent_decode_str(value).decode_utf8_lossy().into_owned())
        })
    };
    let host = param("host").context("the database URL names no socket folder (host=)")?;
    let port = param("port").unwrap_or_else(|| "5432".into());
    Ok(Path::new(&host).join(format!(".s.PGSQL.{port}")))
}
