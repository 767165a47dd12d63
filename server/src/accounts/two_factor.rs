//! Two-step sign-in (issue 19 item 2, API.md §11): TOTP as authenticator apps expect it
//! (RFC 6238: 6 digits, 30 s steps, HMAC-SHA-1, computed by `totp-rs`), and ten single-use
//! recovery codes.
//!
//! - Enrolment: a secret of 160 random bits is made for the user and kept sealed
//!   (`platform::sealing`, the user's id as associated data); while unconfirmed it is shown to
//!   its user (base32, and as a QR code of its `otpauth://` URL drawn as SVG on the server).
//!   A code confirms it; then the ten recovery codes are shown once (only their SHA-256 kept) and
//!   the secret is never shown again.
//! - A code is accepted once: its time step must be later than the last one accepted, which a
//!   conditional `UPDATE` moves forward (so two replicas cannot both accept one code). Codes of
//!   the previous and next step are accepted too, for clocks a little apart.
//! - A recovery code is consumed by a conditional `UPDATE`: it works once.
//! - Every code checked at sign-in or for a step-up counts in the sign-in throttle
//!   ([`users::attempt`]) until it is accepted.
//! - An operator resets a user's second factor when its phone is lost ([`reset`]).

use std::net::IpAddr;
use std::time::{SystemTime, UNIX_EPOCH};

use anyhow::Context;
use chrono::{DateTime, Utc};
use kaadxpay_types::ids::MerchantId;
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use qrcode::render::svg;
use qrcode::QrCode;
use rand::RngCore;
use serde_json::json;
use sha2::{Digest, Sha256};
use sqlx::PgPool;
use subtle::ConstantTimeEq;
use totp_rs::{Algorithm, TOTP};

use super::users;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::platform::sealing::Sealer;
use crate::service::author::{Actor, By};

/// Digits of a code, and seconds of a time step (RFC 6238's defaults, what apps expect).
pub const DIGITS: usize = 6;
pub const STEP_SECONDS: u64 = 30;
/// How many recovery codes an enrolment gives.
pub const RECOVERY_CODES: usize = 10;
/// The issuer an authenticator app shows beside the account.
const ISSUER: &str = "Kaadxpay";
/// Bytes of a new secret: 160 bits, as RFC 4226 recommends.
const SECRET_BYTES: usize = 20;

/// The second factor a sign-in or a step-up was given.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Factor {
    Totp,
    RecoveryCode,
}

impl Factor {
    /// As the audit log names it (`user.signed_in`'s `second_factor`).
    pub fn as_str(self) -> &'static str {
        match self {
            Factor::Totp => "totp",
            Factor::RecoveryCode => "recovery_code",
        }
    }
}

/// What a code is given for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Purpose {
    /// The second step of a sign-in.
    SignIn,
    /// A step-up before a change (`two_factor.step_up` in a member's audit log).
    StepUp,
}

impl Purpose {
    fn as_str(self) -> &'static str {
        match self {
            Purpose::SignIn => "sign_in",
            Purpose::StepUp => "step_up",
        }
    }
}

/// Whose code it is: the user, and its merchant when a member (whose audit log records it).
#[derive(Debug, Clone, Copy)]
pub struct Holder<'a> {
    pub id: &'a str,
    pub email: &'a str,
    pub merchant_id: Option<&'a MerchantId>,
}

/// What became of a code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Checked {
    Accepted(Factor),
    /// Wrong, or already used.
    Refused,
    /// Too many recent failures for the account or the address: not even checked.
    Throttled,
}

/// An enrolment begun and not confirmed: what its user sets the app up with.
pub struct Enrolment {
    /// The secret in base32, to type into an app.
    pub secret: String,
    /// The `otpauth://` URL an app scans.
    pub url: String,
    /// The URL as a QR code: an `<svg>` element.
    pub qr_svg: String,
}

/// A user's two-step sign-in, as the security page shows it.
pub struct Status {
    /// When it was confirmed; `None` while the user has none.
    pub confirmed_at: Option<DateTime<Utc>>,
    pub recovery_codes_left: i64,
}

fn totp(secret: &[u8]) -> TOTP {
    TOTP::new_unchecked(Algorithm::SHA1, DIGITS, 1, STEP_SECONDS, secret.to_vec())
}

fn current_step() -> i64 {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .expect("the clock is after 1970")
        .as_secs();
    (now / STEP_SECONDS) as i64
}

/// The time step `code` is the code of, among the current one and its neighbours.
fn matching_step(secret: &[u8], code: &str) -> Option<i64> {
    let totp = totp(secret);
    let now = current_step();
    (now - 1..=now + 1).find(|step| {
        let expected = totp.generate(*step as u64 * STEP_SECONDS);
        bool::from(expected.as_bytes().ct_eq(code.as_bytes()))
    })
}

/// `code` without the spaces and dashes people type into it, in lower case.
fn normalised(code: &str) -> String {
    code.chars()
        .filter(|c| !c.is_whitespace() && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

fn is_totp_code(code: &str) -> bool {
    code.len() == DIGITS && code.bytes().all(|byte| byte.is_ascii_digit())
}

fn recovery_hash(code: &str) -> Vec<u8> {
    Sha256::digest(normalised(code).as_bytes()).to_vec()
}

/// A new recovery code: ten lower-case letters and digits, written `xxxxx-xxxxx`.
fn new_recovery_code() -> String {
    let text = kaadxpay_types::ids::random_token(10).to_lowercase();
    format!("{}-{}", &text[..5], &text[5..])
}

impl Enrolment {
    fn of(secret: &[u8], email: &str) -> anyhow::Result<Self> {
        let base32 = totp(secret).get_secret_base32();
        let label = format!("{ISSUER}:{email}");
        let url = format!(
            "otpauth://totp/{}?secret={base32}&issuer={ISSUER}&algorithm=SHA1&digits={DIGITS}&period={STEP_SECONDS}",
            utf8_percent_encode(&label, NON_ALPHANUMERIC)
        );
        let svg = QrCode::new(url.as_bytes())
            .context("the otpauth URL fits in a QR code")?
            .render::<svg::Color>()
            .min_dimensions(200, 200)
            .build();
        // Inline in a page: the element alone, without the XML declaration.
        let qr_svg = svg
            .find("<svg")
            .map_or(svg.clone(), |start| svg[start..].to_owned());
        Ok(Self {
            secret: base32,
            url,
            qr_svg,
        })
    }
}

/// The user's status.
pub async fn status(pool: &PgPool, user_id: &str) -> sqlx::Result<Status> {
    sqlx::query_as!(
        Status,
        r#"SELECT (SELECT confirmed_at FROM two_factor WHERE user_id = $1)
               AS "confirmed_at: DateTime<Utc>",
             (SELECT count(*) FROM two_factor_recovery_codes WHERE user_id = $1 AND used_at IS NULL)
               AS "recovery_codes_left!""#,
        user_id,
    )
    .fetch_one(pool)
    .await
}

/// The user's enrolment, begun now if it was not (the same secret on every visit until it is
/// confirmed); `None` once two-step sign-in is on, when the secret is never shown again.
pub async fn enrolment(
    pool: &PgPool,
    sealer: &Sealer,
    user_id: &str,
    email: &str,
) -> anyhow::Result<Option<Enrolment>> {
    let mut secret = [0u8; SECRET_BYTES];
    rand::rngs::OsRng.fill_bytes(&mut secret);
    sqlx::query!(
        "INSERT INTO two_factor (user_id, secret_sealed) VALUES ($1, $2) \
         ON CONFLICT (user_id) DO NOTHING",
        user_id,
        sealer.seal(&secret, user_id),
    )
    .execute(pool)
    .await?;
    let enrolled = sqlx::query!(
        r#"SELECT secret_sealed, confirmed_at IS NOT NULL AS "confirmed!"
           FROM two_factor WHERE user_id = $1"#,
        user_id,
    )
    .fetch_one(pool)
    .await?;
    if enrolled.confirmed {
        return Ok(None);
    }
    let secret = sealer.open(&enrolled.secret_sealed, user_id)?;
    Ok(Some(Enrolment::of(&secret, email)?))
}

/// The time step `code` is a code of, for the user's secret, confirmed or not as `confirmed`
/// says (its row locked until the end of the transaction `conn` is in, if any).
async fn step_of(
    conn: impl sqlx::PgExecutor<'_>,
    sealer: &Sealer,
    user_id: &str,
    code: &str,
    confirmed: bool,
) -> anyhow::Result<Option<i64>> {
    let sealed = sqlx::query_scalar!(
        "SELECT secret_sealed FROM two_factor \
         WHERE user_id = $1 AND (confirmed_at IS NOT NULL) = $2 FOR UPDATE",
        user_id,
        confirmed,
    )
    .fetch_optional(conn)
    .await?;
    let Some(sealed) = sealed else {
        return Ok(None);
    };
    let secret = sealer.open(&sealed, user_id)?;
    Ok(matching_step(&secret, code))
}

/// Confirms the user's enrolment with a code of its secret: two-step sign-in is on from now,
/// and the ten recovery codes are returned, to show once. `None` when the code is not right
/// (or there is no enrolment to confirm). A member's enrolment is audited
/// (`two_factor.enrolled`).
pub async fn confirm(
    pool: &PgPool,
    sealer: &Sealer,
    user_id: &str,
    merchant_id: Option<&MerchantId>,
    by: &By,
    code: &str,
) -> anyhow::Result<Option<Vec<String>>> {
    let code = normalised(code);
    if !is_totp_code(&code) {
        return Ok(None);
    }
    let mut tx = pool.begin().await?;
    let Some(step) = step_of(&mut *tx, sealer, user_id, &code, false).await? else {
        return Ok(None);
    };
    sqlx::query!(
        "UPDATE two_factor SET confirmed_at = now(), last_step = $2 WHERE user_id = $1",
        user_id,
        step,
    )
    .execute(&mut *tx)
    .await?;
    let codes: Vec<String> = (0..RECOVERY_CODES).map(|_| new_recovery_code()).collect();
    let hashes: Vec<Vec<u8>> = codes.iter().map(|code| recovery_hash(code)).collect();
    sqlx::query!(
        "INSERT INTO two_factor_recovery_codes (user_id, code_hash) SELECT $1, unnest($2::bytea[])",
        user_id,
        &hashes,
    )
    .execute(&mut *tx)
    .await?;
    if let Some(merchant_id) = merchant_id {
        let entry = Entry::new(
            merchant_id,
            by,
            Action::TwoFactorEnrolled,
            ObjectType::User,
            user_id,
        )
        .after(json!({"second_factor": "totp", "recovery_codes": RECOVERY_CODES}));
        audit::record(&mut tx, &entry).await?;
    }
    tx.commit().await?;
    Ok(Some(codes))
}

/// Whether `code` is a code of the holder's confirmed secret not used before, or one of its
/// unused recovery codes; either is spent by this check, in the transaction of a member's
/// audit entries: `two_factor.recovery_code_used` for a recovery code, `two_factor.step_up`
/// for a step-up.
async fn verify(
    pool: &PgPool,
    sealer: &Sealer,
    holder: Holder<'_>,
    code: &str,
    by: &By,
    purpose: Purpose,
) -> anyhow::Result<Option<Factor>> {
    let code = normalised(code);
    let totp_step = match is_totp_code(&code) {
        true => match step_of(pool, sealer, holder.id, &code, true).await? {
            Some(step) => Some(step),
            None => return Ok(None),
        },
        false => None,
    };
    let mut tx = pool.begin().await?;
    let factor = if let Some(step) = totp_step {
        let accepted = sqlx::query!(
            "UPDATE two_factor SET last_step = $2 WHERE user_id = $1 \
               AND confirmed_at IS NOT NULL AND (last_step IS NULL OR last_step < $2)",
            holder.id,
            step,
        )
        .execute(&mut *tx)
        .await?;
        (accepted.rows_affected() == 1).then_some(Factor::Totp)
    } else {
        let spent = sqlx::query!(
            "UPDATE two_factor_recovery_codes SET used_at = now() \
             WHERE user_id = $1 AND code_hash = $2 AND used_at IS NULL",
            holder.id,
            recovery_hash(&code),
        )
        .execute(&mut *tx)
        .await?;
        (spent.rows_affected() == 1).then_some(Factor::RecoveryCode)
    };
    if let (Some(factor), Some(merchant_id)) = (factor, holder.merchant_id) {
        let entry = |action| Entry::new(merchant_id, by, action, ObjectType::User, holder.id);
        if factor == Factor::RecoveryCode {
            let after = json!({"for": purpose.as_str()});
            let used = entry(Action::TwoFactorRecoveryCodeUsed).after(after);
            audit::record(&mut tx, &used).await?;
        }
        if purpose == Purpose::StepUp {
            let after = json!({"second_factor": factor.as_str()});
            audit::record(&mut tx, &entry(Action::TwoFactorStepUp).after(after)).await?;
        }
    }
    tx.commit().await?;
    Ok(factor)
}

/// Checks `code` of `holder`, given from `client` for `purpose`, counted in the sign-in
/// throttle until accepted.
pub async fn check(
    pool: &PgPool,
    sealer: &Sealer,
    holder: Holder<'_>,
    code: &str,
    client: Option<IpAddr>,
    purpose: Purpose,
) -> anyhow::Result<Checked> {
    let Some(attempt) = users::attempt(pool, holder.email, client).await? else {
        return Ok(Checked::Throttled);
    };
    let by = By {
        actor: Actor::User(holder.email.to_owned()),
        address: client,
    };
    match verify(pool, sealer, holder, code, &by, purpose).await? {
        Some(factor) => {
            users::forgive(pool, attempt).await?;
            Ok(Checked::Accepted(factor))
        }
        None => Ok(Checked::Refused),
    }
}

/// The second step of a sign-in: [`check`], and the sign-in (`user.signed_in`, with the factor)
/// or its failure (`user.sign_in_failed`) in a member's audit log.
pub async fn sign_in(
    pool: &PgPool,
    sealer: &Sealer,
    user: &users::User,
    code: &str,
    client: Option<IpAddr>,
) -> anyhow::Result<Checked> {
    let holder = Holder {
        id: &user.id,
        email: &user.email,
        merchant_id: user.merchant_id.as_ref(),
    };
    let checked = check(pool, sealer, holder, code, client, Purpose::SignIn).await?;
    if let Some(merchant_id) = &user.merchant_id {
        let by = By {
            actor: Actor::User(user.email.clone()),
            address: client,
        };
        let entry = match checked {
            Checked::Accepted(factor) => {
                users::signed_in_entry(merchant_id, &by, &user.id, factor.as_str())
            }
            Checked::Refused => Entry::new(
                merchant_id,
                &by,
                Action::UserSignInFailed,
                ObjectType::User,
                &user.id,
            )
            .after(json!({"second_factor": "wrong_code"})),
            Checked::Throttled => return Ok(checked),
        };
        let mut conn = pool.acquire().await?;
        audit::record(&mut conn, &entry).await?;
    }
    Ok(checked)
}

/// Takes away the second factor of the user with `email` (its secret and recovery codes), for an
/// operator at the command line (`operator`, by login name); recorded as `two_factor.reset` in
/// a member's audit log. `false` when no user has that email.
pub async fn reset(pool: &PgPool, email: &str, operator: &str) -> anyhow::Result<bool> {
    let mut tx = pool.begin().await?;
    let user = sqlx::query!(
        r#"SELECT id, merchant_id AS "merchant_id: MerchantId"
           FROM users WHERE email = lower($1) FOR UPDATE"#,
        email.trim(),
    )
    .fetch_optional(&mut *tx)
    .await?;
    let Some((user_id, merchant_id)) = user.map(|user| (user.id, user.merchant_id)) else {
        return Ok(false);
    };
    let removed: Option<Option<DateTime<Utc>>> = sqlx::query_scalar!(
        r#"DELETE FROM two_factor WHERE user_id = $1
           RETURNING confirmed_at AS "confirmed_at: DateTime<Utc>""#,
        user_id,
    )
    .fetch_optional(&mut *tx)
    .await?;
    sqlx::query!(
        "DELETE FROM two_factor_recovery_codes WHERE user_id = $1",
        user_id,
    )
    .execute(&mut *tx)
    .await?;
    if let Some(merchant_id) = &merchant_id {
        let by = By {
            actor: Actor::Operator(operator.to_owned()),
            address: None,
        };
        let enrolled = matches!(removed, Some(Some(_)));
        let entry = Entry::new(
            merchant_id,
            &by,
            Action::TwoFactorReset,
            ObjectType::User,
            &user_id,
        )
        .before(json!({"enrolled": enrolled}))
        .after(json!({"enrolled": false}));
        audit::record(&mut tx, &entry).await?;
    }
    tx.commit().await?;
    Ok(true)
}

/// Whether the merchant requires two-step sign-in of every member.
pub async fn required(pool: &PgPool, merchant_id: &MerchantId) -> sqlx::Result<bool> {
    sqlx::query_scalar!(
        "SELECT require_two_factor FROM merchants WHERE id = $1",
        merchant_id.as_str(),
    )
    .fetch_one(pool)
    .await
}

/// Requires two-step sign-in of every member of the merchant, or stops requiring it; a change
/// is audited (`two_factor.requirement_changed`).
pub async fn set_required(
    pool: &PgPool,
    merchant_id: &MerchantId,
    by: &By,
    required: bool,
) -> sqlx::Result<()> {
    let mut tx = pool.begin().await?;
    let before = sqlx::query_scalar!(
        "SELECT require_two_factor FROM merchants WHERE id = $1 FOR UPDATE",
        merchant_id.as_str(),
    )
    .fetch_one(&mut *tx)
    .await?;
    if before == required {
        return Ok(());
    }
    sqlx::query!(
        "UPDATE merchants SET require_two_factor = $2 WHERE id = $1",
        merchant_id.as_str(),
        required,
    )
    .execute(&mut *tx)
    .await?;
    let entry = Entry::new(
        merchant_id,
        by,
        Action::TwoFactorRequirementChanged,
        ObjectType::Merchant,
        merchant_id.as_str(),
    )
    .before(json!({"required": before}))
    .after(json!({"required": required}));
    audit::record(&mut tx, &entry).await?;
    tx.commit().await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_code_of_the_current_or_a_neighbouring_step_matches_that_step() {
        let secret = [7u8; SECRET_BYTES];
        let now = current_step();
        for step in [now - 1, now, now + 1] {
            let code = totp(&secret).generate(step as u64 * STEP_SECONDS);
            assert_eq!(matching_step(&secret, &code), Some(step));
        }
        let old = totp(&secret).generate((now - 3) as u64 * STEP_SECONDS);
        assert_ne!(matching_step(&secret, &old), Some(now - 3));
    }

    #[test]
    fn recovery_codes_are_read_as_people_type_them() {
        let code = new_recovery_code();
        assert_eq!(code.len(), 11);
        assert_eq!(
            recovery_hash(&code),
            recovery_hash(&code.to_uppercase().replace('-', " "))
        );
        assert!(is_totp_code(&normalised("123 456")));
        assert!(!is_totp_code(&normalised(&code)));
    }

    #[test]
    fn the_enrolment_url_is_what_authenticator_apps_read() {
        let enrolment = Enrolment::of(&[1u8; SECRET_BYTES], "ada@example.com").unwrap();
        assert!(enrolment
            .url
            .starts_with("otpauth://totp/Kaadxpay%3Aada%40example%2Ecom?secret="));
        assert!(enrolment.url.contains(&enrolment.secret));
        assert!(enrolment.qr_svg.starts_with("<svg"), "{}", enrolment.qr_svg);
        assert_eq!(enrolment.secret.len(), 32);
    }
}
