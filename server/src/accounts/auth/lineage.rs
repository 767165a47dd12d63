//! Whom a new API key answers to, and where it comes from (API.md §11, "Who may move money"). A
//! key made by a member acts for that member: its powers are the member's role at each use. A
//! key made by a key answers to that key's member the same way, and a roll's successor to the
//! rolled key's. Only an owner may make a key "for the merchant" (its powers are its access
//! alone); a key of `merchants create` answers to nobody. A key can make or roll only keys with
//! no more power than its own, and the key that made or was rolled into another is remembered,
//! so that revoking it revokes them too ([`super::keys::revoke`]).

use kaadxpay_types::ids::MerchantId;
use kaadxpay_types::Role;
use sqlx::PgConnection;

use crate::contract::error::Error;
use crate::service::author::Actor;
use crate::service::commands::Caller;

/// What a new key records of its origin.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Lineage {
    /// The member it answers to (`usr_…`) and their email: kept for four eyes even when the key
    /// was made for the merchant.
    pub maker_id: Option<String>,
    pub maker_email: Option<String>,
    /// Whether its powers are its maker's role at each use.
    pub acts_for_maker: bool,
    /// The key that made it, when a key did.
    pub created_by_key: Option<String>,
    /// The key it succeeds, when it was rolled.
    pub rolled_from: Option<String>,
}

const ONLY_OWNERS_FOR_THE_MERCHANT: &str =
    "Only an owner may make a key for the merchant; make a key that acts for you instead.";
const MORE_POWER_THAN_YOURS: &str =
    "This key may do more than your role allows, so you may not roll it: ask a member whose role may.";

impl Lineage {
    /// A key made by `caller`, for the merchant when `for_merchant` (owners only).
    pub fn made_by(caller: &Caller<'_>, for_merchant: bool) -> Result<Self, Error> {
        let created_by_key = key_of(caller);
        let Some(maker) = caller.maker else {
            return Ok(Self {
                created_by_key,
                ..Self::default()
            });
        };
        let acts_for_maker = match (maker.role, for_merchant) {
            (Some(Role::Owner), true) | (None, _) => false,
            (Some(_), true) => return Err(Error::Forbidden(ONLY_OWNERS_FOR_THE_MERCHANT)),
            (Some(_), false) => true,
        };
        Ok(Self {
            maker_id: Some(maker.user_id.clone()),
            maker_email: Some(maker.email.clone()),
            acts_for_maker,
            created_by_key,
            rolled_from: None,
        })
    }

    /// The successor of the merchant's key `key_id`, rolled by `caller`: it answers to whom the
    /// key answered. A key that may do more than `caller` is refused.
    pub async fn rolled(
        conn: &mut PgConnection,
        caller: &Caller<'_>,
        key_id: &str,
    ) -> Result<Self, Error> {
        let rolled = found(conn, caller.merchant_id, key_id).await?;
        let bound = rolled.lineage.acts_for_maker.then(|| {
            // A key whose member has left works no more: it is bounded by nothing at all.
            rolled.maker_role.unwrap_or(Role::Viewer)
        });
        if !covers(caller, bound) {
            return Err(Error::Forbidden(MORE_POWER_THAN_YOURS));
        }
        Ok(Self {
            created_by_key: key_of(caller),
            rolled_from: Some(key_id.to_owned()),
            ..rolled.lineage
        })
    }
}

/// A key as a roll reads it: its lineage, and its maker's role now.
struct Found {
    lineage: Lineage,
    maker_role: Option<Role>,
}

async fn found(
    conn: &mut PgConnection,
    merchant_id: &MerchantId,
    key_id: &str,
) -> Result<Found, Error> {
    let key = sqlx::query!(
        r#"SELECT k.created_by_user, k.created_by_email, k.acts_for_maker, u.role AS "maker_role?"
           FROM api_keys k
           LEFT JOIN users u ON u.id = k.created_by_user AND u.merchant_id = k.merchant_id
           WHERE k.merchant_id = $1 AND k.id = $2"#,
        merchant_id.as_str(),
        key_id,
    )
    .fetch_optional(conn)
    .await?
    .ok_or(Error::ResourceMissing("API key"))?;
    Ok(Found {
        lineage: Lineage {
            maker_id: key.created_by_user,
            maker_email: key.created_by_email,
            acts_for_maker: key.acts_for_maker,
            created_by_key: None,
            rolled_from: None,
        },
        maker_role: key.maker_role.as_deref().and_then(Role::parse),
    })
}

/// Whether `caller` may do everything a key bounded by `bound` (`None`: by nothing) may.
fn covers(caller: &Caller<'_>, bound: Option<Role>) -> bool {
    match caller.maker.and_then(|maker| maker.role) {
        None => true,
        Some(mine) => bound.is_some_and(|theirs| mine.covers(theirs)),
    }
}

/// The key `caller` acts with, if it is one.
fn key_of(caller: &Caller<'_>) -> Option<String> {
    match &caller.by.actor {
        Actor::ApiKey(key_id) => Some(key_id.to_string()),
        _ => None,
    }
}
