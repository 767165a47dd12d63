//! Console users: merchant users, who see their merchant, and support users, who see every
//! merchant and change nothing. Passwords are hashed with Argon2id.

use kaadxpay_types::ids::{new_id, random_token, MerchantId};
use std::net::IpAddr;
use std::sync::OnceLock;

use anyhow::Context;
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use kaadxpay_types::Role;
use sqlx::{PgConnection, PgPool};

use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::service::author::{Actor, By};

/// Why a user could not be made.
#[derive(Debug, thiserror::Error)]
pub enum CreateError {
    #[error("{0}")]
    Invalid(&'static str),
    #[error("the email already has an account")]
    Taken,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Makes a user on `conn`: a member of a merchant with a role, or a support user when
/// `membership` is `None`; returns the user id.
pub async fn insert(
    conn: &mut PgConnection,
    email: &str,
    password: &str,
    membership: Option<(&str, Role)>,
) -> Result<String, CreateError> {
    if !email.contains('@') {
        return Err(CreateError::Invalid("that is not an email address"));
    }
    if password.chars().count() < 8 {
        return Err(CreateError::Invalid(
            "a password needs at least 8 characters",
        ));
    }
    let password = password.to_owned();
    let password_hash = tokio::task::spawn_blocking(move || hash_password(&password))
        .await
        .expect("hashing does not panic")
        .map_err(|_| CreateError::Invalid("the password cannot be hashed"))?;
    let id = new_id("usr");
    let (merchant_id, role) = match membership {
        Some((merchant_id, role)) => (Some(merchant_id), role.as_str()),
        None => (None, "support"),
    };
    let inserted = sqlx::query!(
        "INSERT INTO users (id, email, password_hash, merchant_id, role) \
         VALUES ($1, lower($2), $3, $4, $5) ON CONFLICT (email) DO NOTHING",
        id,
        email,
        password_hash,
        merchant_id,
        role,
    )
    .execute(conn)
    .await?;
    if inserted.rows_affected() == 0 {
        return Err(CreateError::Taken);
    }
    Ok(id)
}

/// Creates a user: a member of `merchant_id` with `role`, or a support user when `membership`
/// is `None`; returns the user id.
pub async fn create(
    pool: &PgPool,
    email: &str,
    password: &str,
    membership: Option<(&str, Role)>,
) -> anyhow::Result<String> {
    let mut conn = pool.acquire().await?;
    insert(&mut conn, email, password, membership)
        .await
        .with_context(|| format!("cannot create {email}"))
}

/// Failed sign-ins allowed, in [`THROTTLE_WINDOW_MINUTES`], for an account from one client
/// address, and from one client address across accounts. No count spans addresses: failures
/// from one address never refuse the right password from another (API.md §11), so nobody can
/// lock an account, or everyone behind a proxy, by guessing wrong on purpose.
pub const MAX_FAILURES: i64 = 5;
pub const MAX_FAILURES_PER_ADDRESS: i64 = 20;
pub const THROTTLE_WINDOW_MINUTES: i32 = 15;

/// The outcome of a sign-in attempt.
pub enum SignIn {
    /// The user's id: signed in.
    Accepted(String),
    /// The user's id: the password was right, and the user has two-step sign-in, whose code
    /// is asked next (`two_factor::sign_in`); not signed in until it is given.
    SecondFactor(String),
    Refused,
    /// Too many recent failures for this account from this address, or from this address
    /// across accounts; the password was not even checked.
    Throttled,
}

pub struct User {
    pub id: String,
    pub email: String,
    pub merchant_id: Option<MerchantId>,
    /// A member's role (`owner`, `admin`, `developer`, `finance`, `viewer`), or `support`.
    pub role: String,
    /// Whether the user has two-step sign-in (confirmed).
    pub two_factor: bool,
    /// Whether the user's merchant requires two-step sign-in of every member.
    pub two_factor_required: bool,
    /// The IANA time zone the user reads the console's times in.
    pub time_zone: String,
}

impl User {
    /// The member's role; `None` for support staff.
    pub fn member_role(&self) -> Option<Role> {
        Role::parse(&self.role)
    }
}

/// Records an attempt at one of `email`'s secrets (a password, a code) from `client` as a
/// failure, unless there were too many recent failures for the account from that address, or
/// from that address at all: then `None`, and the secret must not be checked. An attempt that
/// turns out right is [`forgive`]n. (Requests without an address, as in some tests, count
/// together under the empty address: a plain `=` keeps the counts on the address's index.)
///
/// The throttle is atomic: under an advisory lock on the address (every count is the
/// address's), the recent failures are counted and this attempt is recorded before its secret
/// is checked, so a burst of parallel guesses from one address counts every guess and at most
/// [`MAX_FAILURES`] of them are ever checked; attempts from other addresses never wait for it.
pub async fn attempt(
    pool: &PgPool,
    email: &str,
    client: Option<IpAddr>,
) -> anyhow::Result<Option<i64>> {
    let client = client.map_or_else(String::new, |client| client.to_string());
    let mut tx = pool.begin().await?;
    sqlx::query!("SELECT pg_advisory_xact_lock(2, hashtext($1))", client)
        .execute(&mut *tx)
        .await?;
    // At most MAX_FAILURES_PER_ADDRESS rows are read, the newest first (backwards along the
    // address's index): with that many the address is refused whatever the account's count,
    // and below it both counts are exact. So an address that keeps guessing (every guess is
    // recorded) costs each check no more than that.
    let recent = sqlx::query!(
        r#"SELECT count(*) FILTER (WHERE email = $1) AS "by_account!",
             count(*) AS "by_address!"
           FROM (SELECT email FROM login_failures
                 WHERE client_addr = $2 AND failed_at > now() - make_interval(mins => $3)
                 ORDER BY failed_at DESC LIMIT $4) recent"#,
        email,
        client,
        THROTTLE_WINDOW_MINUTES,
        MAX_FAILURES_PER_ADDRESS,
    )
    .fetch_one(&mut *tx)
    .await?;
    let (by_account, by_address) = (recent.by_account, recent.by_address);
    let attempt = sqlx::query_scalar!(
        "INSERT INTO login_failures (email, client_addr) VALUES ($1, $2) RETURNING id",
        email,
        client,
    )
    .fetch_one(&mut *tx)
    .await?;
    tx.commit().await?;
    if by_account >= MAX_FAILURES || by_address >= MAX_FAILURES_PER_ADDRESS {
        return Ok(None);
    }
    Ok(Some(attempt))
}

/// Takes back an [`attempt`] that was right: it no longer counts as a failure.
pub async fn forgive(conn: impl sqlx::PgExecutor<'_>, attempt: i64) -> sqlx::Result<()> {
    sqlx::query!("DELETE FROM login_failures WHERE id = $1", attempt)
        .execute(conn)
        .await?;
    Ok(())
}

/// The audit entry of a member's sign-in, saying which second factor it took (`none`, `totp`,
/// `recovery_code`).
pub fn signed_in_entry<'a>(
    merchant_id: &'a MerchantId,
    by: &'a By,
    user_id: &'a str,
    second_factor: &str,
) -> Entry<'a> {
    Entry::new(
        merchant_id,
        by,
        Action::UserSignedIn,
        ObjectType::User,
        user_id,
    )
    .after(serde_json::json!({ "second_factor": second_factor }))
}

/// Checks a password against the stored Argon2id hash, throttled per account and client
/// address, and per client address, in the database ([`attempt`]), so that every app server
/// throttles alike. An
/// unknown email is checked against a dummy hash, so it costs the same Argon2 verification and
/// its answer comes as late. Argon2 runs on the blocking pool. A member's sign-in, and a
/// member's failed one, write an audit entry (an unknown email has no merchant to write it for;
/// support staff have none either); a user with two-step sign-in is not signed in yet
/// ([`SignIn::SecondFactor`]), and its sign-in is recorded with the second step.
pub async fn sign_in(
    pool: &PgPool,
    email: &str,
    password: &str,
    client: Option<IpAddr>,
) -> anyhow::Result<SignIn> {
    let email = email.trim().to_lowercase();
    let Some(attempt) = attempt(pool, &email, client).await? else {
        return Ok(SignIn::Throttled);
    };

    let stored = sqlx::query!(
        r#"SELECT u.id, u.password_hash, u.merchant_id AS "merchant_id: MerchantId",
             t.confirmed_at IS NOT NULL AS "two_factor!"
           FROM users u LEFT JOIN two_factor t ON t.user_id = u.id WHERE u.email = $1"#,
        email,
    )
    .fetch_optional(pool)
    .await?
    .map(|user| {
        (
            user.id,
            user.password_hash,
            user.merchant_id,
            user.two_factor,
        )
    });
    let hash = stored.as_ref().map(|(_, hash, _, _)| hash.clone());
    let password = password.to_owned();
    let verified = tokio::task::spawn_blocking(move || {
        verify(&password, hash.as_deref().unwrap_or_else(|| dummy_hash()))
    })
    .await?;
    let by = By {
        actor: Actor::User(email.clone()),
        address: client,
    };
    let mut tx = pool.begin().await?;
    let signed_in = match stored {
        Some((id, _, _, true)) if verified => {
            forgive(&mut *tx, attempt).await?;
            SignIn::SecondFactor(id)
        }
        Some((id, _, merchant_id, false)) if verified => {
            forgive(&mut *tx, attempt).await?;
            if let Some(merchant_id) = &merchant_id {
                audit::record(&mut tx, &signed_in_entry(merchant_id, &by, &id, "none")).await?;
            }
            SignIn::Accepted(id)
        }
        Some((id, _, Some(merchant_id), _)) => {
            let entry = Entry::new(
                &merchant_id,
                &by,
                Action::UserSignInFailed,
                ObjectType::User,
                &id,
            );
            audit::record(&mut tx, &entry).await?;
            SignIn::Refused
        }
        _ => SignIn::Refused,
    };
    tx.commit().await?;
    Ok(signed_in)
}

fn verify(password: &str, hash: &str) -> bool {
    metrics::counter!("kaadxpay_login_verifications_total").increment(1);
    PasswordHash::new(hash).is_ok_and(|hash| {
        Argon2::default()
            .verify_password(password.as_bytes(), &hash)
            .is_ok()
    })
}

/// A hash no password matches, verified for unknown emails so that they cost what a wrong
/// password costs.
fn dummy_hash() -> &'static str {
    static DUMMY: OnceLock<String> = OnceLock::new();
    DUMMY.get_or_init(|| hash_password(&random_token(32)).expect("a random password hashes"))
}

fn hash_password(password: &str) -> anyhow::Result<String> {
    let salt = SaltString::generate(&mut OsRng);
    Ok(Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|err| anyhow::anyhow!("cannot hash the password: {err}"))?
        .to_string())
}

/// The user `id`, with its two-step sign-in and whether its merchant requires it.
pub async fn find(pool: &PgPool, id: &str) -> sqlx::Result<Option<User>> {
    sqlx::query_as!(
        User,
        r#"SELECT u.id, u.email, u.merchant_id AS "merchant_id: MerchantId", u.role,
             t.confirmed_at IS NOT NULL AS "two_factor!",
             coalesce(m.require_two_factor, false) AS "two_factor_required!", u.time_zone
           FROM users u LEFT JOIN two_factor t ON t.user_id = u.id
             LEFT JOIN merchants m ON m.id = u.merchant_id
           WHERE u.id = $1"#,
        id,
    )
    .fetch_optional(pool)
    .await
}

/// Sets the time zone user `id` reads times in (an IANA name the caller checked).
pub async fn set_time_zone(pool: &PgPool, id: &str, time_zone: &str) -> sqlx::Result<()> {
    sqlx::query!(
        "UPDATE users SET time_zone = $2 WHERE id = $1",
        id,
        time_zone
    )
    .execute(pool)
    .await?;
    Ok(())
}

pub async fn exists(pool: &PgPool, email: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar!(
        r#"SELECT EXISTS (SELECT 1 FROM users WHERE email = lower($1)) AS "exists!""#,
        email,
    )
    .fetch_one(pool)
    .await
}
