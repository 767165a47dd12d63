//! A counting layer between a `kaadxpay serve` and PostgreSQL: a Unix-socket proxy that
//! counts round trips, i.e. how often a client sends after the server last spoke on its
//! connection. That counts what `pg_stat_statements` cannot see, such as the pool's ping
//! (a bare `Sync`) before handing out a connection, and counts a pipeline as one. It also
//! counts the statements clients run (each `Query` and `Execute` message: a `BEGIN` or a
//! `ROLLBACK` is one, a ping none), and apart, the round trips of connections that copy rows in
//! (that have sent `COPY` data): the request log's writer, whose connection does nothing else.

use std::path::PathBuf;
use std::str::FromStr;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::Arc;

use anyhow::Context;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use sqlx::postgres::PgConnectOptions;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::{TcpStream, UnixListener, UnixStream};
use tokio::task::JoinHandle;

/// Proxies started by this process, for their folders' names.
static PROXIES: AtomicU64 = AtomicU64::new(0);

/// The port named in the proxy's socket file (`.s.PGSQL.<port>`); nothing listens on TCP.
const PORT: u16 = 5432;

pub struct CountingProxy {
    dir: PathBuf,
    counts: Arc<Counts>,
    task: JoinHandle<()>,
}

/// What the proxy counted, over every connection.
#[derive(Default)]
struct Counts {
    round_trips: AtomicU64,
    statements: AtomicU64,
    /// Of `round_trips`, those of connections that have sent `COPY` data, from the first.
    copying_round_trips: AtomicU64,
}

impl CountingProxy {
    /// Listens in a fresh folder and forwards every connection to the database `upstream_url`
    /// names: a socket (libpq form, `?host=<folder>&port=<port>`) or a TCP address.
    pub fn start(upstream_url: &str) -> anyhow::Result<Self> {
        let upstream = Upstream::of(upstream_url)?;
        let dir = std::env::temp_dir().join(format!(
            "kaadxpay-proxy-{}-{}",
            std::process::id(),
            PROXIES.fetch_add(1, Ordering::SeqCst)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir)?;
        let listener = UnixListener::bind(dir.join(format!(".s.PGSQL.{PORT}")))?;
        let counts = Arc::new(Counts::default());
        let counter = counts.clone();
        let task = tokio::spawn(async move {
            while let Ok((client, _)) = listener.accept().await {
                let upstream = upstream.clone();
                let counter = counter.clone();
                tokio::spawn(async move {
                    let (client_read, client_write) = client.into_split();
                    match upstream {
                        Upstream::Socket(path) => {
                            if let Ok(server) = UnixStream::connect(path).await {
                                let (read, write) = server.into_split();
                                forward(client_read, client_write, read, write, counter).await;
                            }
                        }
                        Upstream::Tcp(host, port) => {
                            if let Ok(server) = TcpStream::connect((host.as_str(), port)).await {
                                let (read, write) = server.into_split();
                                forward(client_read, client_write, read, write, counter).await;
                            }
                        }
                    }
                });
            }
        });
        Ok(Self { dir, counts, task })
    }

    /// The URL of `database` through the proxy, as user `postgres`.
    pub fn url(&self, database: &str) -> String {
        let host = utf8_percent_encode(&self.dir.to_string_lossy(), NON_ALPHANUMERIC).to_string();
        format!("postgres://postgres@localhost/{database}?host={host}&port={PORT}")
    }

    /// Round trips counted so far, over every connection.
    pub fn round_trips(&self) -> u64 {
        self.counts.round_trips.load(Ordering::SeqCst)
    }

    /// Of [`CountingProxy::round_trips`], those of connections that copy rows in, counted
    /// from the round trip that sent their first `COPY` data.
    pub fn copying_round_trips(&self) -> u64 {
        self.counts.copying_round_trips.load(Ordering::SeqCst)
    }

    /// Statements counted so far, over every connection.
    // The bench counts statements with `pg_stat_statements`; the integration tests with this.
    #[allow(dead_code)]
    pub fn statements(&self) -> u64 {
        self.counts.statements.load(Ordering::SeqCst)
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
async fn forward(
    client_read: impl AsyncRead + Unpin,
    client_write: impl AsyncWrite + Unpin,
    server_read: impl AsyncRead + Unpin,
    server_write: impl AsyncWrite + Unpin,
    counts: Arc<Counts>,
) {
    let server_spoke = AtomicBool::new(true);
    let mut messages = Messages::default();
    let requests = pump(client_read, server_write, |chunk| {
        let statements = messages.statements_in(chunk);
        counts.statements.fetch_add(statements, Ordering::SeqCst);
        if server_spoke.swap(false, Ordering::SeqCst) {
            counts.round_trips.fetch_add(1, Ordering::SeqCst);
            if messages.copied {
                counts.copying_round_trips.fetch_add(1, Ordering::SeqCst);
            }
        }
    });
    let answers = pump(server_read, client_write, |_| {
        server_spoke.store(true, Ordering::SeqCst)
    });
    tokio::join!(requests, answers);
}

/// Copies `from` to `to` until either ends, calling `before_write` with each chunk.
async fn pump(
    mut from: impl AsyncRead + Unpin,
    mut to: impl AsyncWrite + Unpin,
    mut before_write: impl FnMut(&[u8]),
) {
    let mut buf = vec![0; 64 * 1024];
    loop {
        let n = match from.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        before_write(&buf[..n]);
        if to.write_all(&buf[..n]).await.is_err() {
            break;
        }
    }
    let _ = to.shutdown().await;
}

/// The messages a client sends, read across chunks: first untyped ones (an `SSLRequest` or a
/// `GSSENCRequest`, then the startup message: a length and a code), then typed ones (a type
/// byte and a length), whose lengths count themselves.
#[derive(Default)]
struct Messages {
    /// Whether the startup message has gone by.
    typed: bool,
    /// The header read so far of the next message.
    header: Vec<u8>,
    /// Bytes of the current message still to pass.
    rest: usize,
    /// Whether a `CopyData` message has gone by.
    copied: bool,
}

/// The codes of the untyped requests that a startup message still follows.
const ENCRYPTION_REQUESTS: [u32; 2] = [80_877_103, 80_877_104];

impl Messages {
    /// How many statements (`Query` and `Execute` messages) begin in `chunk`.
    fn statements_in(&mut self, mut chunk: &[u8]) -> u64 {
        let mut statements = 0;
        while !chunk.is_empty() {
            if self.rest > 0 {
                let passed = self.rest.min(chunk.len());
                self.rest -= passed;
                chunk = &chunk[passed..];
                continue;
            }
            let wanted = if self.typed { 5 } else { 8 } - self.header.len();
            let taken = wanted.min(chunk.len());
            self.header.extend_from_slice(&chunk[..taken]);
            chunk = &chunk[taken..];
            if taken < wanted {
                break;
            }
            let word = |at: usize| {
                u32::from_be_bytes(self.header[at..at + 4].try_into().expect("four bytes"))
            };
            if self.typed {
                statements += u64::from(matches!(self.header[0], b'Q' | b'E'));
                self.copied |= self.header[0] == b'd';
                self.rest = (word(1) as usize).saturating_sub(4);
            } else {
                self.typed = !ENCRYPTION_REQUESTS.contains(&word(4));
                self.rest = (word(0) as usize).saturating_sub(8);
            }
            self.header.clear();
        }
        statements
    }
}

/// Where the database listens.
#[derive(Clone)]
enum Upstream {
    Socket(PathBuf),
    Tcp(String, u16),
}

impl Upstream {
    fn of(url: &str) -> anyhow::Result<Self> {
        let options = PgConnectOptions::from_str(url).context("an invalid database URL")?;
        Ok(match options.get_socket() {
            Some(folder) => Self::Socket(folder.join(format!(".s.PGSQL.{}", options.get_port()))),
            None => Self::Tcp(options.get_host().to_owned(), options.get_port()),
        })
    }
}
