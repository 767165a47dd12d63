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
//! without spaces). Each submit claims its key in `console_submits` (by merchant and key) before
//! it runs and remembers there the page of what it made; another submit of the same key waits
//! for that page, so a form's key makes one effect even where the API has none to guard it
//! (money simulated in).

use std::future::Future;
use std::time::Duration;

use axum::response::{IntoResponse, Redirect, Response};
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use tokio::time::Instant;
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
    /// The form's name (`payout`, `refund`, `api_key`, `secret_rotation`, `invitation`,
    /// `incoming_transfer`).
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

/// How long a submit waits for another submit of the same form (its key) to finish: a double
/// click's second submit lands where the first one does.
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(30);

/// A submit's claim on its key that never finished (the process stopped midway) is given up
/// after this long, so that the key may be used again.
const ABANDONED_AFTER: Duration = Duration::from_secs(5 * 60);

/// Runs `submit` (which answers the page of what it made, or the answer to give instead) unless
/// the form's key already made something (then to that) or it looks like a repeat (then to
/// `/repeat`, unless the form says `again=1`); what it made is remembered. The key is claimed
/// before `submit` runs, so a submit of the same key meanwhile (a double click, a burst) waits
/// and lands on what the first one made, even for a change that no idempotency key of the API
/// guards. Without a `guard` (a change the guard does not watch), `submit` runs and lands on
/// its page.
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
    let deadline = Instant::now() + IN_FLIGHT_WAIT;
    loop {
        match earlier(pool, &guard, &fingerprint).await {
            Err(error) => return failure(error),
            Ok(Some(Earlier::SameKey(Some(made)))) => {
                // The form's key made it already: this submit is its replay, as the log says.
                noted::note(guard.key, Verdict::Replayed);
                return Redirect::to(&made).into_response();
            }
            Ok(Some(Earlier::SameKey(None))) if Instant::now() < deadline => {
                // Another submit of the form is under way: wait for what it makes.
                tokio::time::sleep(Duration::from_millis(100)).await;
                continue;
            }
            Ok(Some(Earlier::SameKey(None))) => {
                return failure(format!(
                    "the submit of key {} is still under way",
                    guard.key
                ))
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
        match claim(pool, &guard, &fingerprint).await {
            Err(error) => return failure(error),
            Ok(true) => break,
            // Another submit of the same key claimed it first: wait for it.
            Ok(false) => {}
        }
    }
    let made = match submit.await {
        Ok(made) => made,
        Err(answer) => {
            return match release(pool, &guard).await {
                Ok(()) => answer,
                Err(error) => failure(error),
            }
        }
    };
    match settle(pool, &guard, &made).await {
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
    /// This form's key was claimed: the page of what it made, or `None` while under way.
    SameKey(Option<String>),
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
         AND made IS NOT NULL AND created_at > now() - make_interval(secs => $5))) \
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
        false => Earlier::SameFields(row.made.unwrap_or_default()),
    }))
}

/// Claims the form's key for this submit; `false` when another submit has it.
async fn claim(pool: &PgPool, guard: &Guarded<'_>, fingerprint: &[u8]) -> sqlx::Result<bool> {
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "DELETE FROM console_submits WHERE merchant_id = $1 \
         AND (created_at < now() - interval '1 day' \
         OR (made IS NULL AND created_at < now() - make_interval(secs => $2)))",
        guard.merchant_id.as_str(),
        ABANDONED_AFTER.as_secs_f64(),
    )
    .execute(&mut *tx)
    .await?;
    let claimed = sqlx::query!(
        "INSERT INTO console_submits (merchant_id, idempotency_key, form, fingerprint) \
         VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
        guard.merchant_id.as_str(),
        guard.key,
        guard.form,
        fingerprint,
    )
    .execute(&mut *tx)
    .await?
    .rows_affected()
        == 1;
    tx.commit().await?;
    Ok(claimed)
}

/// Remembers the page of what the claimed submit made.
async fn settle(pool: &PgPool, guard: &Guarded<'_>, made: &str) -> sqlx::Result<()> {
    sqlx::query!(
        "UPDATE console_submits SET made = $3 WHERE merchant_id = $1 AND idempotency_key = $2",
        guard.merchant_id.as_str(),
        guard.key,
        made,
    )
    .execute(pool)
    .await?;
    Ok(())
}

/// Gives the key back after a submit that made nothing (refused, or failed): the next submit of
/// the form tries again.
async fn release(pool: &PgPool, guard: &Guarded<'_>) -> sqlx::Result<()> {
    sqlx::query!(
        "DELETE FROM console_submits WHERE merchant_id = $1 AND idempotency_key = $2 \
         AND made IS NULL",
        guard.merchant_id.as_str(),
        guard.key,
    )
    .execute(pool)
    .await?;
    Ok(())
}
