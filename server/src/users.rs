//! Console users: merchant users, who see their merchant, and support users, who see every
//! merchant and change nothing. Passwords are hashed with Argon2id.

use anyhow::{bail, Context};
use argon2::password_hash::{rand_core::OsRng, PasswordHasher, SaltString};
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
