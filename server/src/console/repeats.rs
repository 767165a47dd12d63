//! The repeat guard (API.md §9, "Forms and people"): a console submit that would repeat, within
//! [`WITHIN`], what the same merchant already did from the console with the same fields under
//! another `idempotency_key` (Back, then submit again, in a browser that mints a new key) does
//! nothing: it is kept and sent to `/repeat`, titled "This looks like a repeat", which links
//! the first one and offers "Do it again" (the same fields, the new key, and `again=1`). A
//! double click never reaches the guard: its key is the first one's, and it lands on what the
//! first made.
//!
//! A form joins by wrapping its submit in [`guarded`] with the fields that make two of its
//! submits the same ([`Guarded::same`], normalised by the form: an amount in minor units, an IBAN
//! without spaces). What a submit made is remembered in `console_submits` by merchant and key.

use std::future::Future;
use std::time::Duration;

use axum::response::{IntoResponse, Redirect, Response};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use tower_sessions::Session;

use app::console::{Repeat, Verdict};
use kaadxpay_types::ids::MerchantId;

use super::kept::{back_with, Submitted};
use super::notices::failure;
use crate::request_log::noted;

/// How far back a submit of the same fields counts as a repeat.
pub const WITHIN: Duration = Duration::from_secs(10 * 60);

/// The page that says a submit looks like a repeat.
pub const REPEAT: &str = "/repeat";

/// A submit the guard is asked about.
pub struct Guarded<'a> {
    /// The form's name (`payout`, `api_key`, `secret_rotation`, `invitation`).
    pub form: &'static str,
    pub merchant_id: &'a MerchantId,
    /// The form's `idempotency_key`.
    pub key: &'a str,
    /// The values that make two of the form's submits the same, normalised.
    pub same: Vec<String>,
    /// Where the form posts, for "Do it again".
    pub action: &'a str,
}

impl Guarded<'_> {
    fn fingerprint(&self) -> Vec<u8> {
        let mut hash = Sha256::new();
        hash.update(self.form.as_bytes());
        for value in &self.same {
            hash.update([0]);
            hash.update(value.as_bytes());
        }
        hash.finalize().to_vec()
    }
}

/// Runs `submit` (which answers the page of what it made, or the answer to give instead) unless
/// the form's key already made something (then to that) or it looks like a repeat (then to
/// `/repeat`, unless the form says `again=1`); what it made is remembered. Without a `guard`
/// (a change the guard does not watch), `submit` runs and lands on its page.
pub async fn guarded(
    pool: &PgPool,
    session: &Session,
    submitted: &Submitted,
    guard: Option<Guarded<'_>>,
    submit: impl Future<Output = Result<String, Response>>,
) -> Response {
    let Some(guard) = guard else {
        return landing(submit.await);
    };
    let fingerprint = guard.fingerprint();
    match earlier(pool, &guard, &fingerprint).await {
        Err(error) => return failure(error),
        Ok(Some(Earlier::SameKey(made))) => {
            // The form's key made it already: this submit is its replay, as the log says.
            noted::note(guard.key, Verdict::Replayed);
            return Redirect::to(&made).into_response();
        }
        Ok(Some(Earlier::SameFields(first))) if submitted.field("again") != "1" => {
            let mut kept = submitted.kept(REPEAT, true);
            kept.repeat = Some(Repeat {
                action: guard.action.to_owned(),
                first,
            });
            return back_with(session, &kept).await;
        }
        Ok(_) => {}
    }
    let made = match submit.await {
        Ok(made) => made,
        Err(answer) => return answer,
    };
    match remember(pool, &guard, &fingerprint, &made).await {
        Ok(()) => landing(Ok(made)),
        Err(error) => failure(error),
    }
}

/// The answer to a form whose submit made something: to its page; else the answer it gave.
pub fn landing(made: Result<String, Response>) -> Response {
    match made {
        Ok(page) => Redirect::to(&page).into_response(),
        Err(answer) => answer,
    }
}

enum Earlier {
    /// This form's key made something already: its page.
    SameKey(String),
    /// Another key made the same within [`WITHIN`]: the first one's page.
    SameFields(String),
}

async fn earlier(
    pool: &PgPool,
    guard: &Guarded<'_>,
    fingerprint: &[u8],
) -> sqlx::Result<Option<Earlier>> {
    let found = sqlx::query!(
        "SELECT made, idempotency_key = $2 AS \"same_key!\" FROM console_submits \
         WHERE merchant_id = $1 AND (idempotency_key = $2 OR (form = $3 AND fingerprint = $4 \
         AND created_at > now() - make_interval(secs => $5))) \
         ORDER BY idempotency_key = $2 DESC, created_at LIMIT 1",
        guard.merchant_id.as_str(),
        guard.key,
        guard.form,
        fingerprint,
        WITHIN.as_secs_f64(),
    )
    .fetch_optional(pool)
    .await?;
    Ok(found.map(|row| match row.same_key {
        true => Earlier::SameKey(row.made),
        false => Earlier::SameFields(row.made),
    }))
}

async fn remember(
    pool: &PgPool,
    guard: &Guarded<'_>,
    fingerprint: &[u8],
    made: &str,
) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "DELETE FROM console_submits WHERE merchant_id = $1 AND created_at < now() - interval '1 day'",
        guard.merchant_id.as_str(),
    )
    .execute(&mut *tx)
    .await?;
    sqlx::query!(
        "INSERT INTO console_submits (merchant_id, idempotency_key, form, fingerprint, made) \
         VALUES ($1, $2, $3, $4, $5) ON CONFLICT DO NOTHING",
        guard.merchant_id.as_str(),
        guard.key,
        guard.form,
        fingerprint,
        made,
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await
}
