//! A merchant's team (API.md §11): its members and their roles, invitations (a single-use link
//! that expires; only the token's SHA-256 is kept), role changes and removals. Who may do what
//! is [`Role::may`] and [`Role::manages`], checked here for every change, whatever the page
//! showed. A merchant always keeps an owner: the owners' rows are locked while one is changed.
//! A change takes effect on the member's next request, since the console reads the member's
//! row on every request (a removed member's session finds no user). Removing a member revokes
//! every API key that acts for it, in the same transaction. An invitation works while it is
//! neither accepted, revoked nor expired, and while its inviter is still a member whose role
//! may invite its role. Every change writes its audit entry in its own transaction.

use kaadxpay_types::ids::{new_id, random_token, MerchantId};
use std::net::IpAddr;
use std::time::Duration;

use chrono::{DateTime, Utc};
use kaadxpay_types::Role;
use serde_json::json;
use sha2::{Digest, Sha256};
use sqlx::PgPool;

use crate::accounts::users;
use crate::history::audit::{self, Action, Entry, ObjectType};
use crate::service::author::{Actor as Author, By};

/// How long an invitation link works.
pub const INVITATION_TTL: Duration = Duration::from_secs(7 * 24 * 3600);

/// The member acting.
pub struct Actor<'a> {
    pub user_id: &'a str,
    pub merchant_id: &'a MerchantId,
    pub role: Role,
    /// Who the member is (its email) and where it acts from, for the audit log.
    pub by: &'a By,
}

#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("your role may not do this")]
    NotAllowed,
    #[error("a merchant keeps at least one owner")]
    LastOwner,
    #[error("no such member")]
    UnknownMember,
    #[error("that email already has an account")]
    Taken,
    #[error("that is not an email address")]
    InvalidEmail,
    #[error("this invitation has expired or has been used")]
    InvitationGone,
    #[error("a password needs at least 8 characters")]
    ShortPassword,
    #[error(transparent)]
    Database(#[from] sqlx::Error),
}

/// Refuses a change that `actor` may not make to a member who has, or would have, `role`.
fn check_manages(actor: Role, role: Role) -> Result<(), TeamError> {
    if actor.manages(role) {
        Ok(())
    } else {
        Err(TeamError::NotAllowed)
    }
}

fn token_hash(token: &str) -> Vec<u8> {
    Sha256::digest(token.as_bytes()).to_vec()
}

/// Invites `email` to the actor's merchant as `role`; the invitation's id and its token, to put
/// in the link (shown once).
pub async fn invite(
    pool: &PgPool,
    actor: &Actor<'_>,
    email: &str,
    role: Role,
) -> Result<(String, String), TeamError> {
    check_manages(actor.role, role)?;
    let email = email.trim().to_lowercase();
    if !email.contains('@') || email.chars().any(char::is_control) {
        return Err(TeamError::InvalidEmail);
    }
    if users::exists(pool, &email).await? {
        return Err(TeamError::Taken);
    }
    let (id, token) = (new_id("inv"), random_token(32));
    let mut tx = pool.begin().await?;
    sqlx::query!(
        "INSERT INTO invitations (id, token_hash, merchant_id, email, role, invited_by, expires_at) \
         VALUES ($1, $2, $3, $4, $5, $6, now() + make_interval(secs => $7))",
        id,
        token_hash(&token),
        actor.merchant_id.as_str(),
        email,
        role.as_str(),
        actor.user_id,
        INVITATION_TTL.as_secs_f64(),
    )
    .execute(&mut *tx)
    .await?;
    let entry = Entry::new(
        actor.merchant_id,
        actor.by,
        Action::MemberInvited,
        ObjectType::Invitation,
        &id,
    );
    let invited = json!({ "email": email, "role": role.as_str() });
    audit::record(&mut tx, &entry.after(invited)).await?;
    tx.commit().await?;
    tracing::info!(
        event = "member.invited",
        merchant_id = %actor.merchant_id,
        by = actor.user_id,
        role = role.as_str(),
        "invitation sent"
    );
    Ok((id, token))
}

/// The role an invitation gives, while its inviter's role (`None` once the inviter is gone)
/// may still invite it.
fn working(role: &str, inviter_role: Option<&str>) -> Option<Role> {
    let role = Role::parse(role)?;
    let inviter = Role::parse(inviter_role?)?;
    inviter.manages(role).then_some(role)
}

/// The email and role an invitation link is for, while it works.
pub async fn invitation(pool: &PgPool, token: &str) -> sqlx::Result<Option<(String, Role)>> {
    let found = sqlx::query!(
        r#"SELECT i.email, i.role, u.role AS "inviter_role?" FROM invitations i
           LEFT JOIN users u ON u.id = i.invited_by AND u.merchant_id = i.merchant_id
           WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL
             AND i.expires_at > now()"#,
        token_hash(token),
    )
    .fetch_optional(pool)
    .await?;
    Ok(found.and_then(|found| {
        working(&found.role, found.inviter_role.as_deref()).map(|role| (found.email, role))
    }))
}

/// Revokes the merchant's invitation `invitation_id`, which stops working at once: for a
/// member who may invite its role.
pub async fn revoke_invitation(
    pool: &PgPool,
    actor: &Actor<'_>,
    invitation_id: &str,
) -> Result<(), TeamError> {
    let mut tx = pool.begin().await?;
    let revoked = sqlx::query!(
        "SELECT email, role FROM invitations \
         WHERE merchant_id = $1 AND id = $2 AND accepted_at IS NULL AND revoked_at IS NULL \
         FOR UPDATE",
        actor.merchant_id.as_str(),
        invitation_id,
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(TeamError::InvitationGone)?;
    check_manages(
        actor.role,
        Role::parse(&revoked.role).ok_or(TeamError::NotAllowed)?,
    )?;
    sqlx::query!(
        "UPDATE invitations SET revoked_at = now() WHERE merchant_id = $1 AND id = $2",
        actor.merchant_id.as_str(),
        invitation_id,
    )
    .execute(&mut *tx)
    .await?;
    let entry = Entry::new(
        actor.merchant_id,
        actor.by,
        Action::MemberInvitationRevoked,
        ObjectType::Invitation,
        invitation_id,
    );
    let invitation = json!({ "email": revoked.email, "role": revoked.role });
    audit::record(&mut tx, &entry.before(invitation)).await?;
    tx.commit().await?;
    Ok(())
}

/// Accepts an invitation once, from `address`: the new member's user id.
pub async fn accept(
    pool: &PgPool,
    token: &str,
    password: &str,
    address: Option<IpAddr>,
) -> Result<String, TeamError> {
    if password.chars().count() < 8 {
        return Err(TeamError::ShortPassword);
    }
    let mut tx = pool.begin().await?;
    // The inviter's row is locked too, so that a removal or a role change cannot pass between
    // this check and the commit.
    let taken = sqlx::query!(
        r#"UPDATE invitations i SET accepted_at = now()
           FROM users u
           WHERE i.token_hash = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL
             AND i.expires_at > now() AND u.id = i.invited_by AND u.merchant_id = i.merchant_id
           RETURNING i.merchant_id, i.email, i.role, u.role AS inviter_role"#,
        token_hash(token),
    )
    .fetch_optional(&mut *tx)
    .await?
    .ok_or(TeamError::InvitationGone)?;
    let role = working(&taken.role, Some(&taken.inviter_role)).ok_or(TeamError::InvitationGone)?;
    let (merchant_id, email) = (taken.merchant_id, taken.email);
    let user_id = users::insert(&mut tx, &email, password, Some((&merchant_id, role)))
        .await
        .map_err(|error| match error {
            users::CreateError::Taken => TeamError::Taken,
            users::CreateError::Database(error) => TeamError::Database(error),
            users::CreateError::Invalid(_) => TeamError::InvalidEmail,
        })?;
    let by = By {
        actor: Author::User(email.clone()),
        address,
    };
    let merchant_id = MerchantId::from(merchant_id);
    let entry = Entry::new(
        &merchant_id,
        &by,
        Action::MemberJoined,
        ObjectType::Member,
        &user_id,
    );
    let joined = json!({ "email": email, "role": role.as_str() });
    audit::record(&mut tx, &entry.after(joined)).await?;
    tx.commit().await?;
    tracing::info!(
        event = "member.joined",
        merchant_id = %merchant_id,
        user_id,
        role = role.as_str(),
        "invitation accepted"
    );
    Ok(user_id)
}

/// Gives `member_id` the role `role`.
pub async fn change_role(
    pool: &PgPool,
    actor: &Actor<'_>,
    member_id: &str,
    role: Role,
) -> Result<(), TeamError> {
    check_manages(actor.role, role)?;
    let mut tx = pool.begin().await?;
    let current = member_role(&mut tx, actor.merchant_id, member_id).await?;
    check_manages(actor.role, current)?;
    if current == Role::Owner && role != Role::Owner {
        keep_an_owner(&mut tx, actor.merchant_id).await?;
    }
    sqlx::query!(
        "UPDATE users SET role = $3 WHERE merchant_id = $1 AND id = $2",
        actor.merchant_id.as_str(),
        member_id,
        role.as_str(),
    )
    .execute(&mut *tx)
    .await?;
    let entry = Entry::new(
        actor.merchant_id,
        actor.by,
        Action::MemberRoleChanged,
        ObjectType::Member,
        member_id,
    )
    .before(json!({ "role": current.as_str() }))
    .after(json!({ "role": role.as_str() }));
    audit::record(&mut tx, &entry).await?;
    tx.commit().await?;
    tracing::info!(
        event = "member.role_changed",
        merchant_id = %actor.merchant_id,
        by = actor.user_id,
        member_id,
        from = current.as_str(),
        to = role.as_str(),
        "role changed"
    );
    Ok(())
}

/// Removes `member_id` from the team; its sessions end on their next request.
pub async fn remove(pool: &PgPool, actor: &Actor<'_>, member_id: &str) -> Result<(), TeamError> {
    let mut tx = pool.begin().await?;
    let current = member_role(&mut tx, actor.merchant_id, member_id).await?;
    check_manages(actor.role, current)?;
    if current == Role::Owner {
        keep_an_owner(&mut tx, actor.merchant_id).await?;
    }
    let email = sqlx::query_scalar!(
        "DELETE FROM users WHERE merchant_id = $1 AND id = $2 RETURNING email",
        actor.merchant_id.as_str(),
        member_id,
    )
    .fetch_one(&mut *tx)
    .await?;
    let revoked_keys = sqlx::query_scalar!(
        "UPDATE api_keys SET expires_at = now() \
         WHERE merchant_id = $1 AND created_by_user = $2 AND acts_for_maker \
           AND (expires_at IS NULL OR expires_at > now()) \
         RETURNING id",
        actor.merchant_id.as_str(),
        member_id,
    )
    .fetch_all(&mut *tx)
    .await?;
    let entry = Entry::new(
        actor.merchant_id,
        actor.by,
        Action::MemberRemoved,
        ObjectType::Member,
        member_id,
    );
    let removed = json!({ "email": email, "role": current.as_str() });
    let revoked = json!({ "revoked_api_keys": revoked_keys });
    audit::record(&mut tx, &entry.before(removed).after(revoked)).await?;
    tx.commit().await?;
    tracing::info!(
        event = "member.removed",
        merchant_id = %actor.merchant_id,
        by = actor.user_id,
        member_id,
        "member removed"
    );
    Ok(())
}

/// The member's role, its row locked for the change.
async fn member_role(
    conn: &mut sqlx::PgConnection,
    merchant_id: &MerchantId,
    member_id: &str,
) -> Result<Role, TeamError> {
    let role = sqlx::query_scalar!(
        "SELECT role FROM users WHERE merchant_id = $1 AND id = $2 FOR UPDATE",
        merchant_id.as_str(),
        member_id,
    )
    .fetch_optional(conn)
    .await?;
    role.as_deref()
        .and_then(Role::parse)
        .ok_or(TeamError::UnknownMember)
}

/// Refuses to take the merchant's last owner away; the owners' rows stay locked until the
/// change commits, so two changes at once cannot take away one owner each.
async fn keep_an_owner(
    conn: &mut sqlx::PgConnection,
    merchant_id: &MerchantId,
) -> Result<(), TeamError> {
    let owners = sqlx::query_scalar!(
        "SELECT id FROM users WHERE merchant_id = $1 AND role = 'owner' ORDER BY id FOR UPDATE",
        merchant_id.as_str(),
    )
    .fetch_all(conn)
    .await?;
    if owners.len() <= 1 {
        return Err(TeamError::LastOwner);
    }
    Ok(())
}

/// A member as the team page lists it.
pub struct MemberRow {
    pub id: String,
    pub email: String,
    pub role: String,
    pub created_at: DateTime<Utc>,
}

pub async fn members(pool: &PgPool, merchant_id: &MerchantId) -> sqlx::Result<Vec<MemberRow>> {
    sqlx::query_as!(
        MemberRow,
        r#"SELECT id, email, role, created_at AS "created_at: DateTime<Utc>"
           FROM users WHERE merchant_id = $1 ORDER BY created_at, id"#,
        merchant_id.as_str(),
    )
    .fetch_all(pool)
    .await
}

/// Invitations that still work: id, email, role, expiry.
pub async fn pending(
    pool: &PgPool,
    merchant_id: &MerchantId,
) -> sqlx::Result<Vec<(String, String, Role, DateTime<Utc>)>> {
    Ok(sqlx::query!(
        r#"SELECT i.id, i.email, i.role, u.role AS "inviter_role?",
             i.expires_at AS "expires_at: DateTime<Utc>"
           FROM invitations i
           LEFT JOIN users u ON u.id = i.invited_by AND u.merchant_id = i.merchant_id
           WHERE i.merchant_id = $1 AND i.accepted_at IS NULL AND i.revoked_at IS NULL
             AND i.expires_at > now()
           ORDER BY i.created_at DESC"#,
        merchant_id.as_str(),
    )
    .fetch_all(pool)
    .await?
    .into_iter()
    .filter_map(|invitation| {
        let role = working(&invitation.role, invitation.inviter_role.as_deref())?;
        Some((invitation.id, invitation.email, role, invitation.expires_at))
    })
    .collect())
}
