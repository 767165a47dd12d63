//! Each API key's `last_used_at`, kept off the request path: a request only notes its key's id
//! in an in-process set; [`KeyUsage::flush`] (a worker, every [`FLUSH_INTERVAL`]) writes the
//! set in one `UPDATE`, which touches a key at most once a minute (across every replica: the
//! condition is on the stored time), so `last_used_at` is right to the minute and within a
//! minute of a use.

use std::collections::HashSet;
use std::mem;
use std::sync::Mutex;
use std::time::Duration;

use sqlx::PgPool;

/// How often the noted uses reach the database.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(5);

/// The ids of the keys used since the last flush.
#[derive(Default)]
pub struct KeyUsage {
    used: Mutex<HashSet<String>>,
}

impl KeyUsage {
    /// Notes that the key `key_id` was just used.
    pub fn note(&self, key_id: &str) {
        let mut used = self.used.lock().expect("never poisoned");
        if !used.contains(key_id) {
            used.insert(key_id.to_owned());
        }
    }

    /// Writes the noted uses: `last_used_at` becomes now for each key not marked used in the
    /// last minute. Uses that do not reach the database are noted again for the next flush.
    pub async fn flush(&self, pool: &PgPool) -> sqlx::Result<()> {
        let used: Vec<String> = mem::take(&mut *self.used.lock().expect("never poisoned"))
            .into_iter()
            .collect();
        if used.is_empty() {
            return Ok(());
        }
        let written = sqlx::query(
            "UPDATE api_keys SET last_used_at = now() WHERE id = ANY($1) \
               AND (last_used_at IS NULL OR last_used_at <= now() - interval '1 minute')",
        )
        .bind(&used)
        .execute(pool)
        .await;
        if written.is_err() {
            self.used.lock().expect("never poisoned").extend(used);
        }
        written.map(|_| ())
    }
}
