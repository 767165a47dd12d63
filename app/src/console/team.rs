//! People: a merchant's members and invitations, and a user's two-step sign-in.

use async_trait::async_trait;

use super::*;

/// A member of the merchant's team.
#[derive(Debug, Clone)]
pub struct Member {
    pub id: UserId,
    pub email: String,
    pub role: Role,
    pub joined_at: DateTime<Utc>,
}

/// An invitation not yet accepted.
#[derive(Debug, Clone)]
pub struct PendingInvitation {
    pub id: InvitationId,
    pub email: String,
    pub role: Role,
    pub expires_at: DateTime<Utc>,
}

/// The signed-in user's two-step sign-in, for `/settings/security`.
#[derive(Debug, Clone)]
pub struct Security {
    /// Since when it is on; `None` while it is not.
    pub enrolled_at: Option<DateTime<Utc>>,
    pub recovery_codes_left: i64,
    /// While it is not on: what to set it up with.
    pub enrolment: Option<Enrolment>,
    /// Whether the merchant requires it of every member.
    pub required: bool,
}

/// Two-step sign-in being set up: the secret in base32 and as a QR code (an `<svg>` element
/// drawn by the server from the `otpauth://` URL).
#[derive(Debug, Clone)]
pub struct Enrolment {
    pub secret: String,
    pub qr_svg: String,
}

/// People: a merchant's members and invitations, and a user's two-step sign-in.
#[async_trait]
pub trait TeamConsole: Send + Sync {
    /// The merchant's members and its invitations not yet accepted.
    async fn team(
        &self,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<(Vec<Member>, Vec<PendingInvitation>)>;
    /// The email and role an invitation link is for, while it works.
    async fn invitation(&self, token: &str) -> ConsoleResult<Option<(String, Role)>>;
    /// The user's two-step sign-in; an enrolment is begun (its secret made) while it is off.
    async fn security(&self, user: &CurrentUser) -> ConsoleResult<Security>;
}
