//! What a console submit did with its form's key, noted for the request log: the console's
//! forms carry their idempotency key in the body, not in an `Idempotency-Key` header, and their
//! verdict is known only inside the console's backend. While the request log's layer serves a
//! request it holds a [`KeyNote`] for it ([`noting`]); the backend notes the key and the
//! engine's verdict there ([`note`]), and the entry records them as the API's requests record
//! theirs, so a double submit shows up as `new` then `replayed` on the key's timeline.

use std::future::Future;
use std::sync::{Arc, Mutex};

use kaadxpay_types::Verdict;

/// A form's key and the engine's verdict on it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Noted {
    pub key: String,
    pub verdict: Verdict,
}

type KeyNote = Arc<Mutex<Option<Noted>>>;

tokio::task_local! {
    static KEY_NOTE: KeyNote;
}

/// Serves `request` with a note of its own, and answers what was noted in it.
pub async fn noting<F: Future>(request: F) -> (F::Output, Option<Noted>) {
    let note = KeyNote::default();
    let output = KEY_NOTE.scope(note.clone(), request).await;
    let noted = note.lock().ok().and_then(|mut noted| noted.take());
    (output, noted)
}

/// Notes that the request being served ran its form's `key` with `verdict` (the last note
/// stands: a submit that waited for an earlier one in flight and then replayed it is
/// `replayed`); nothing outside [`noting`].
pub fn note(key: &str, verdict: Verdict) {
    let _ = KEY_NOTE.try_with(|note| {
        if let Ok(mut noted) = note.lock() {
            *noted = Some(Noted {
                key: key.to_owned(),
                verdict,
            });
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_note_is_read_by_the_request_that_made_it_only() {
        let ((), noted) = noting(async {
            note("form-1", Verdict::InProgress);
            note("form-1", Verdict::Replayed);
        })
        .await;
        assert_eq!(
            noted,
            Some(Noted {
                key: "form-1".into(),
                verdict: Verdict::Replayed
            })
        );
        let ((), nothing) = noting(async {}).await;
        assert_eq!(nothing, None);
        note("outside", Verdict::New);
    }
}
