//! Console users: merchant users, who see their merchant, and support users, who see every
//! merchant and change nothing. Passwords are hashed with Argon2id.

use anyhow::{bail, Context};
use argon2::password_hash::{
    rand_core::OsRng, PasswordHash, PasswordHasher, PasswordVerifier, SaltString,
};
use argon2::Argon2;
use sqlx::PgPool;

use crate::ids::new_id;

/// Creates a user for `merchant_id`, or a support user when it is `None`; returns the user id.
pub async fn create(
    pool: &PgPool,
    email: &str,
    password: &str,
    merchant_id: Option<&str>,
) -> anyhow::Result<String> {
    if !email.contains('@') {
        bail!("{email} is not an email address");
    }
    if password.chars().count() < 8 {
        bail!("a password needs at least 8 characters");
    }
    let salt = SaltString::generate(&mut OsRng);
    let password_hash = Argon2::default()
        .hash_password(password.as_bytes(), &salt)
        .map_err(|err| anyhow::anyhow!("cannot hash the password: {err}"))?
        .to_string();
    let id = new_id("usr");
    let role = if merchant_id.is_some() {
        "merchant"
    } else {
        "support"
    };
    sqlx::query("INSERT INTO users (id, email, password_hash, merchant_id, role) VALUES ($1, lower($2), $3, $4, $5)")
        .bind(&id)
        .bind(email)
        .bind(password_hash)
        .bind(merchant_id)
        .bind(role)
        .execute(pool)
        .await
        .with_context(|| format!("cannot create {email}: is the email taken, or the merchant unknown?"))?;
    Ok(id)
}

/// Failed sign-ins allowed per account in [`THROTTLE_WINDOW_MINUTES`].
pub const MAX_FAILURES: i64 = 5;
pub const THROTTLE_WINDOW_MINUTES: i32 = 15;

/// The outcome of a sign-in attempt.
pub enum SignIn {
    /// The user's id.
    Accepted(String),
    Refused,
    /// Too many recent failures for this account; the password was not even checked.
    Throttled,
}

#[derive(sqlx::FromRow)]
pub struct User {
    pub id: String,
    pub email: String,
    pub merchant_id: Option<String>,
}

/// Checks a password against the stored Argon2id hash, counting failures per account in the
/// database so that every app server throttles alike.
pub async fn sign_in(pool: &PgPool, email: &str, password: &str) -> anyhow::Result<SignIn> {
    let email = email.trim().to_lowercase();
    let failures: i64 = sqlx::query_scalar(
        "SELECT count(*) FROM login_failures WHERE email = $1 AND failed_at > now() - make_interval(mins => $2)",
    )
    .bind(&email)
    .bind(THROTTLE_WINDOW_MINUTES)
    .fetch_one(pool)
    .await?;
    if failures >= MAX_FAILURES {
        return Ok(SignIn::Throttled);
    }
    let stored: Option<(String, String)> =
        sqlx::query_as("SELECT id, password_hash FROM users WHERE email = $1")
            .bind(&email)
            .fetch_optional(pool)
            .await?;
    let verified = stored.as_ref().is_some_and(|(_, hash)| {
        PasswordHash::new(hash).is_ok_and(|hash| {
            Argon2::default()
                .verify_password(password.as_bytes(), &hash)
                .is_ok()
        })
    });
    match stored {
        Some((id, _)) if verified => Ok(SignIn::Accepted(id)),
        _ => {
            sqlx::query("INSERT INTO login_failures (email) VALUES ($1)")
                .bind(&email)
                .execute(pool)
                .await?;
            Ok(SignIn::Refused)
        }
    }
}

pub async fn find(pool: &PgPool, id: &str) -> sqlx::Result<Option<User>> {
    sqlx::query_as("SELECT id, email, merchant_id FROM users WHERE id = $1")
        .bind(id)
        .fetch_optional(pool)
        .await
}

pub async fn exists(pool: &PgPool, email: &str) -> sqlx::Result<bool> {
    sqlx::query_scalar("SELECT EXISTS (SELECT 1 FROM users WHERE email = lower($1))")
        .bind(email)
        .fetch_one(pool)
        .await
}
