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
//! The application state holds one; [`listen`] runs beside the workers for as long as the
//! process does.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sqlx::postgres::PgListener;
use sqlx::PgPool;

/// How long a lookup is trusted at most, notification or not.
pub const TTL: Duration = Duration::from_secs(5);
/// The notification channel the revocation trigger sends the revoked key's hash on (hex).
pub const CHANNEL: &str = "kaadxpay_api_key_revoked";
/// Entries kept at most; a full cache drops its expired entries, or all of them.
const CAPACITY: usize = 10_000;
/// The pause before listening again after the listener failed.
const RELISTEN_PAUSE: Duration = Duration::from_secs(1);

#[derive(Default)]
pub struct ApiKeyCache {
    entries: Mutex<HashMap<Vec<u8>, (String, Instant)>>,
    /// Bumped on every revocation and every gap in listening: a lookup that started under an
    /// older epoch may have read a key revoked since, and is not cached.
    epoch: AtomicU64,
    /// Nothing is cached unless the listener is connected.
    listening: AtomicBool,
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
}

/// Listens for revocations for as long as the runtime runs, on a connection of `pool` (a pool of
/// its own: the listener keeps its connection), reconnecting after a failure.
pub async fn listen(cache: Arc<ApiKeyCache>, pool: PgPool) {
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
