//! The in-process cache of API-key lookups: a key's merchant is remembered for at most
//! [`TTL`] and never past the key's expiry, and forgotten at once on every replica when the key
//! is revoked.
//!
//! Revoking a key is setting its `expires_at` (a roll or a revocation), changing its hash, or
//! deleting it or its merchant, by any means: a trigger (migration
//! `20261204175300_apikeys_merchant_api_keys.sql`) then sends the old hash on the [`CHANNEL`]
//! notification channel, which every process listens to on a connection of its own. An expiry
//! in the future (a roll with an overlap) is announced too, and a lookup made after it is
//! trusted only until that expiry. Entries are kept only while that listener is connected; when it drops, the cache
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

use kaadxpay_types::ids::MerchantId;

use super::Merchant;

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
    /// Each key's lookup, with the instant it stops being trusted.
    entries: Mutex<HashMap<Vec<u8>, (Merchant, Instant)>>,
    /// Bumped on every revocation and every gap in listening: a lookup that started under an
    /// older epoch may have read a key revoked since, and is not cached.
    epoch: AtomicU64,
    /// Nothing is cached unless the listener is connected.
    listening: AtomicBool,
}

impl ApiKeyCache {
    /// The merchant of the key hashed `hash`, if looked up less than [`TTL`] ago, not expired
    /// since and not revoked.
    pub fn get(&self, hash: &[u8]) -> Option<Merchant> {
        let entries = self.entries.lock().expect("never poisoned");
        let (merchant, trusted_until) = entries.get(hash)?;
        (Instant::now() < *trusted_until).then(|| merchant.clone())
    }

    /// The epoch to pass to [`Self::insert`], read before the database lookup.
    pub fn epoch(&self) -> u64 {
        self.epoch.load(Ordering::SeqCst)
    }

    /// Remembers a lookup started at `asked_at` under `epoch`, of a key that then expired in
    /// `expires_in` (if ever), unless a revocation or a gap in listening came since.
    pub fn insert(
        &self,
        hash: Vec<u8>,
        merchant: Merchant,
        asked_at: Instant,
        expires_in: Option<Duration>,
        epoch: u64,
    ) {
        let trusted_until = asked_at + expires_in.map_or(TTL, |expires_in| expires_in.min(TTL));
        let now = Instant::now();
        let mut entries = self.entries.lock().expect("never poisoned");
        // Checked under the lock that `forget` takes after bumping the epoch.
        if !self.listening.load(Ordering::SeqCst) || self.epoch() != epoch {
            return;
        }
        if entries.len() >= CAPACITY {
            entries.retain(|_, (_, trusted_until)| now < *trusted_until);
            if entries.len() >= CAPACITY {
                entries.clear();
            }
        }
        entries.insert(hash, (merchant, trusted_until));
    }

    /// Forgets every key of `merchant_id` in this process at once, without waiting for the
    /// notification: called when a request of this process rolled or revoked one of its keys,
    /// after the change committed and before it is answered, so that no request of this process
    /// that follows the answer is let in with a key the answer says has stopped (API.md §11).
    pub fn forget_merchant(&self, merchant_id: &MerchantId) {
        self.epoch.fetch_add(1, Ordering::SeqCst);
        self.entries
            .lock()
            .expect("never poisoned")
            .retain(|_, (merchant, _)| merchant.id != *merchant_id);
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
