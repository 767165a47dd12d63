//! Completed answers in memory, so that a hot replay makes no database round trip. A completed
//! record never changes until it expires, so an answer can be kept per `(scope, key)` until
//! its `expires_at`, and is never served after it: its local deadline is taken *before* the
//! statement that made or read the record, so it never outlives the record's own. At most
//! [`ENTRIES`] answers are kept; the oldest goes first. A key the cache does not hold is read
//! from the primary, as without it. Hits and misses are counted for `/metrics`.

use std::collections::{HashMap, VecDeque};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::response::StoredResponse;
use crate::scope::Scope;

/// How many answers a process keeps (each about the size of its body, a few hundred bytes).
pub const ENTRIES: usize = 10_000;

type Key = (String, String);

/// What a key answered, and what it answers for.
#[derive(Clone)]
pub struct Remembered {
    pub endpoint: &'static str,
    pub request_hash: Vec<u8>,
    pub response: StoredResponse,
}

#[derive(Clone, Default)]
pub struct Answers {
    inner: Arc<Mutex<Inner>>,
}

#[derive(Default)]
struct Inner {
    entries: HashMap<Key, (Remembered, Instant, u64)>,
    /// Keys in the order they were kept, with the generation each was kept under.
    order: VecDeque<(Key, u64)>,
    generation: u64,
}

impl Answers {
    /// The answer kept for `(scope, key)`, if it has not expired.
    pub fn get(&self, scope: Scope<'_>, key: &str) -> Option<Remembered> {
        let mut inner = self.inner.lock().expect("answers lock");
        let entry_key = (scope.as_str().to_owned(), key.to_owned());
        let found = match inner.entries.get(&entry_key) {
            Some((remembered, deadline, _)) if Instant::now() < *deadline => {
                Some(remembered.clone())
            }
            Some(_) => {
                inner.entries.remove(&entry_key);
                None
            }
            None => None,
        };
        let result = if found.is_some() { "hit" } else { "miss" };
        metrics::counter!("kaadxpay_idempotency_cache_total", "result" => result).increment(1);
        found
    }

    /// Keeps `remembered` for `(scope, key)` until `deadline`.
    pub fn put(&self, scope: Scope<'_>, key: &str, remembered: Remembered, deadline: Instant) {
        let mut inner = self.inner.lock().expect("answers lock");
        inner.generation += 1;
        let generation = inner.generation;
        let entry_key = (scope.as_str().to_owned(), key.to_owned());
        inner.order.push_back((entry_key.clone(), generation));
        inner
            .entries
            .insert(entry_key, (remembered, deadline, generation));
        while inner.entries.len() > ENTRIES || inner.order.len() > 2 * ENTRIES {
            let Some((oldest, kept_as)) = inner.order.pop_front() else {
                break;
            };
            if inner.entries.get(&oldest).map(|entry| entry.2) == Some(kept_as) {
                inner.entries.remove(&oldest);
            }
        }
        metrics::gauge!("kaadxpay_idempotency_cache_entries").set(inner.entries.len() as f64);
    }
}
