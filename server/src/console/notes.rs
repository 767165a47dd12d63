//! What a console submit keeps for the page it leads to (API.md §9, "Forms and people"): the
//! form as typed (`kept`), the notice of what was done (`confirm`), a one-time secret
//! (`session::flash`). Each is a row of its own in `console_notes`, by session and slot, not a
//! value in the session's record: tower-sessions writes a session's record back whole at the end
//! of every request that changed it, so two requests of one session at the same moment (two tabs,
//! a submit while a page loads) each wrote back the record as they had read it, and the later
//! dropped what the earlier kept. A note is put by one statement and taken (deleted as it is
//! read, so shown once) by another.
//!
//! A session's notes are filed under a hash of its CSRF token: random, made at sign-in and kept
//! until sign-out, unlike the session's id, which sign-in changes only once the request ends.
//! The console's routes run inside [`scope`], which gives these functions the database.

use axum::extract::{Request, State};
use axum::middleware::Next;
use axum::response::Response;
use serde::de::DeserializeOwned;
use serde::Serialize;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use tower_sessions::Session;

use app::console::Done;

tokio::task_local! {
    static NOTES: PgPool;
}

/// The layer over the console's routes that keeps their notes in `pool`.
pub async fn scope(State(pool): State<PgPool>, request: Request, next: Next) -> Response {
    NOTES.scope(pool, next.run(request)).await
}

fn pool() -> anyhow::Result<PgPool> {
    NOTES
        .try_with(PgPool::clone)
        .map_err(|_| anyhow::anyhow!("a console note outside the console's routes"))
}

/// Where a note is kept for its page.
pub enum Slot<'a> {
    /// A form kept for the page at this path.
    Kept(&'a str),
    /// What the last action did, for the next page.
    Done,
    /// A one-time secret, sealed, for the next page.
    Flash,
}

impl Slot<'_> {
    fn name(&self) -> String {
        match self {
            Slot::Kept(page) => format!("kept {page}"),
            Slot::Done => "done".to_owned(),
            Slot::Flash => "flash".to_owned(),
        }
    }
}

async fn owner(session: &Session) -> anyhow::Result<Vec<u8>> {
    let token = super::csrf::csrf_token(session).await?;
    Ok(Sha256::digest(token.as_bytes()).to_vec())
}

/// Keeps `value` in the session's `slot` (replacing what was there); notes nobody came for are
/// deleted after a day.
pub async fn put<T: Serialize>(session: &Session, slot: Slot<'_>, value: &T) -> anyhow::Result<()> {
    let (pool, owner) = (pool()?, owner(session).await?);
    let value = serde_json::to_value(value)?;
    let mut tx = pool.begin().await?;
    sqlx::query!("DELETE FROM console_notes WHERE created_at < now() - interval '1 day'")
        .execute(&mut *tx)
        .await?;
    sqlx::query!(
        "INSERT INTO console_notes (owner, slot, value) VALUES ($1, $2, $3) \
         ON CONFLICT (owner, slot) DO UPDATE SET value = EXCLUDED.value, created_at = now()",
        owner,
        slot.name(),
        value,
    )
    .execute(&mut *tx)
    .await?;
    tx.commit().await?;
    Ok(())
}

/// The note in the session's `slot`, taken, with its age in seconds; `None` when there is none.
pub async fn take<T: DeserializeOwned>(
    session: &Session,
    slot: Slot<'_>,
) -> anyhow::Result<Option<(T, i64)>> {
    let (pool, owner) = (pool()?, owner(session).await?);
    let taken = sqlx::query!(
        "DELETE FROM console_notes WHERE owner = $1 AND slot = $2 \
         RETURNING value, extract(epoch FROM now() - created_at)::bigint AS \"age!\"",
        owner,
        slot.name(),
    )
    .fetch_optional(&pool)
    .await?;
    match taken {
        None => Ok(None),
        Some(row) => Ok(Some((serde_json::from_value(row.value)?, row.age))),
    }
}

/// What the last action did, taken (said once).
pub async fn take_done(session: &Session) -> anyhow::Result<Option<Done>> {
    Ok(take(session, Slot::Done).await?.map(|(done, _)| done))
}
