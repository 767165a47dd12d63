//! Each API key's `last_used_at`, kept off the request path: a request only notes its key's id
//! in an in-process set; [`KeyUsage::flush`] (a worker, every [`FLUSH_INTERVAL`]) writes the
//! set in one `UPDATE`, which touches a key at most once a minute (across every replica: the
//! condition is on the stored time), so `last_used_at` is right to the minute and within a
//! minute of a use. The same `UPDATE` gives a key migrated from before keys had prefixes (its
//! secret was never stored) its prefix, from its first use.

use std::collections::HashMap;
use std::mem;
use std::sync::Mutex;
use std::time::Duration;

use sqlx::PgPool;

use super::PREFIX_CHARS;

/// How often the noted uses reach the database.
pub const FLUSH_INTERVAL: Duration = Duration::from_secs(5);

/// The ids of the keys used since the last flush, each with the prefix to record for it (a
/// migrated key's, from its secret) if any.
#[derive(Default)]
pub struct KeyUsage {
    used: Mutex<HashMap<String, Option<String>>>,
}

impl KeyUsage {
    /// Notes that the key `key_id` was just used; `prefix` when its stored prefix is incomplete.
    pub fn note(&self, key_id: &str, prefix: Option<&str>) {
        let mut used = self.used.lock().expect("never poisoned");
        match used.get_mut(key_id) {
            Some(noted) => {
                if noted.is_none() {
                    *noted = prefix.map(str::to_owned);
                }
            }
            None => {
                used.insert(key_id.to_owned(), prefix.map(str::to_owned));
            }
        }
    }

    /// Writes the noted uses: `last_used_at` becomes now for each key not marked used in the
    /// last minute, and an incomplete prefix becomes the noted one. Uses that do not reach the
    /// database are noted again for the next flush.
    pub async fn flush(&self, pool: &PgPool) -> sqlx::Result<()> {
        let used = mem::take(&mut *self.used.lock().expect("never poisoned"));
        if used.is_empty() {
            return Ok(());
        }
        let (ids, prefixes): (Vec<String>, Vec<Option<String>>) = used.into_iter().unzip();
        let written = sqlx::query!(
            "UPDATE api_keys k SET \
               last_used_at = CASE WHEN k.last_used_at > now() - interval '1 minute' \
                 THEN k.last_used_at ELSE now() END, \
               prefix = CASE WHEN length(k.prefix) < $3 THEN coalesce(u.prefix, k.prefix) \
                 ELSE k.prefix END \
             FROM unnest($1::text[], $2::text[]) AS u (id, prefix) \
             WHERE k.id = u.id AND (k.last_used_at IS NULL \
               OR k.last_used_at <= now() - interval '1 minute' \
               OR (length(k.prefix) < $3 AND u.prefix IS NOT NULL))",
            &ids,
            &prefixes as &[Option<String>],
            PREFIX_CHARS as i32,
        )
        .execute(pool)
        .await;
        if written.is_err() {
            let mut used = self.used.lock().expect("never poisoned");
            for (id, prefix) in ids.into_iter().zip(prefixes) {
                used.entry(id).or_insert(prefix);
            }
        }
        written.map(|_| ())
    }
}
