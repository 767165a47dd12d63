//! The in-process cache of API-key lookups: a key's merchant is remembered for at most
//! [`TTL`], and forgotten at once on every replica when the key is revoked.
//!
//! Revoking a key is changing its merchant's `api_key_hash` or deleting the merchant, by any
//! means: a trigger (migration `20261204000001_api_key_revocation.sql`) then sends the old hash
//! on the [`CHANNEL`] notification channel, which every process listens to on a connection
//! of its own. Entries are kept only while that listener is connected; when it drops, the cache
//! is emptied (a notification may have been missed) and lookups go to the database until it is
//! back. [`TTL`] is the backstop bound for what no notification announces.
//!
//! One cache per database this process talks to, made on first use, so that the extractor
//! needs nothing from the application state but the pool.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use sqlx::postgres::PgListener;
use sqlx::PgPool;
use tokio::task::JoinHandle;

/// How long a lookup is trusted at most, notification or not.
pub const TTL: Duration = Duration::from_secs(5);
/// The notification channel the revocation trigger sends the revoked key's hash on (hex).
pub const CHANNEL: &str = "kaadxpay_api_key_revoked";
/// Entries kept at most; a full cache drops its expired entries, or all of them.
const CAPACITY: usize = 10_000;
/// The pause before listening again after the listener failed.
const RELISTEN_PAUSE: Duration = Duration::from_secs(1);

pub struct ApiKeyCache {
    entries: Mutex<HashMap<Vec<u8>, (String, Instant)>>,
    /// Bumped on every revocation and every gap in listening: a lookup that started under an
    /// older epoch may have read a key revoked since, and is not cached.
    epoch: AtomicU64,
    listening: AtomicBool,
    listener: Mutex<Option<JoinHandle<()>>>,
}

/// The cache for `pool`'s database, its listener (re)started when it is not running (on first
/// use, or when the runtime it ran on has ended).
pub fn for_pool(pool: &PgPool) -> Arc<ApiKeyCache> {
    static CACHES: OnceLock<Mutex<HashMap<String, Arc<ApiKeyCache>>>> = OnceLock::new();
    let options = pool.connect_options();
    let database = format!(
        "{}:{}:{:?}:{:?}",
        options.get_host(),
        options.get_port(),
        options.get_socket(),
        options.get_database()
    );
    let cache = CACHES
        .get_or_init(Default::default)
        .lock()
        .expect("the cache registry is never poisoned")
        .entry(database)
        .or_insert_with(|| {
            Arc::new(ApiKeyCache {
                entries: Mutex::default(),
                epoch: AtomicU64::new(0),
                listening: AtomicBool::new(false),
                listener: Mutex::default(),
            })
        })
        .clone();
    cache.ensure_listener(pool);
    cache
}

impl ApiKeyCache {
    /// The merchant of the key hashed `hash`, if looked up less than [`TTL`] ago and not revoked.
    pub fn get(&self, hash: &[u8]) -> Option<String> {
        let entries = self.entries.lock().expect("never poisoned");
        let (merchant_id, cached_at) = entries.get(hash)?;
        (cached_at.elapsed() < TTL).then(|| merchant_id.clone())
    }

    /// The epoch to pass to [`Self::insert`], read before the database lookup.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Remembers a lookup made under `epoch`, unless a revocation or a gap in listening came since.
    pub fn insert(&self, hash: Vec<u8>, merchant_id: String, epoch: u64) {
        let mut entries = self.entries.lock().expect("never poisoned");
        // Checked under the lock that `forget` takes after bumping the epoch.
        if !self.listening.load(Ordering::SeqCst) || self.epoch() != epoch {
            return;
        }
        if entries.len() >= CAPACITY {
            entries.retain(|_, (_, cached_at)| cached_at.elapsed() < TTL);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(hash, (merchant_id, Instant::now()));
    }

    /// Forgets one key (`Some`: its hash) or every key.
    fn forget(&self, hash: Option<&[u8]>) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        let mut entries = self.entries.lock().expect("never poisoned");
        match hash {
            Some(hash) => {
                entries.remove(hash);
            }
            None => entries.clear(),
        }
    }

    fn ensure_listener(self: &Arc<Self>, pool: &PgPool) {
        let mut listener = self.listener.lock().expect("never poisoned");
        if listener.as_ref().is_some_and(|task| !task.is_finished()) {
            return;
        }
        // A listener that ended (its runtime went away) may have missed revocations.
        self.listening.store(false, Ordering::SeqCst);
        self.forget(None);
        *listener = Some(tokio::spawn(listen(self.clone(), pool.clone())));
    }
}

/// Listens for revocations for as long as the runtime runs, reconnecting after a failure.
async fn listen(cache: Arc<ApiKeyCache>, pool: PgPool) {
    loop {
        if let Err(error) = listen_until_lost(&cache, &pool).await {
            tracing::warn!(error = %error, "the API-key revocation listener failed; API keys are looked up uncached until it is back");
        }
        cache.listening.store(false, Ordering::SeqCst);
        cache.forget(None);
        tokio::time::sleep(RELISTEN_PAUSE).await;
    }
}

/// One listening connection, until it is lost (`Ok`) or fails (`Err`).
async fn listen_until_lost(cache: &ApiKeyCache, pool: &PgPool) -> sqlx::Result<()> {
    let mut listener = PgListener::connect_with(pool).await?;
    listener.listen(CHANNEL).await?;
    // Whatever was revoked before we listened is forgotten too.
    cache.forget(None);
    cache.listening.store(true, Ordering::SeqCst);
    while let Some(notification) = listener.try_recv().await? {
        match hex::decode(notification.payload()) {
            Ok(hash) => cache.forget(Some(&hash)),
            Err(_) => cache.forget(None),
        }
    }
    Ok(())
}
