//! The team's forms: invite a member, revoke an invitation, change a member's role, remove a
//! member (owners and admins; admins not owners, see `team`), and accept an invitation (anyone holding its link,
//! signed in as the new member once it is accepted). Each answers a `303` like every form.

use axum::extract::{Path, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use kaadxpay_types::ids::MerchantId;
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{CurrentUser, Destructive, Done, KeptForm, Permission, Role};

use super::confirm;
use super::forms::{by_user, failure, forbidden, stepped_up_merchant};
use super::kept::Submitted;
use super::repeats::{self, Guarded};
use super::session;
use crate::accounts::team::{self, Actor, TeamError};
use crate::edge::client::ClientAddress;
use crate::service::author::By;
use crate::service::state::AppState;

const TEAM: &str = "/settings/team";

/// Back to `page` with the refusal's code, which the page turns into a fixed sentence.
fn refused(page: &str, error: TeamError) -> Response {
    let code = match error {
        TeamError::NotAllowed => "role_not_allowed",
        TeamError::LastOwner => "last_owner",
        TeamError::UnknownMember => "unknown_member",
        TeamError::Taken => "taken",
        TeamError::InvalidEmail => "invalid_email",
        TeamError::InvitationGone => "invitation_gone",
        TeamError::ShortPassword => "short_password",
        TeamError::Database(error) => return failure(error),
    };
    Redirect::to(&format!("{page}?error={code}")).into_response()
}

/// The acting member: its user id, merchant, role, and who it is for the audit log.
struct Manager {
    user_id: String,
    merchant_id: MerchantId,
    role: Role,
    by: By,
}

impl Manager {
    fn actor(&self) -> Actor<'_> {
        Actor {
            user_id: &self.user_id,
            merchant_id: &self.merchant_id,
            role: self.role,
            by: &self.by,
        }
    }
}

/// The acting member, once the form checks out, its role may manage the team and it gave a
/// second factor recently (when it has one).
async fn manager(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    csrf: &str,
    resume: &KeptForm,
) -> Result<Manager, Response> {
    let merchant_id =
        stepped_up_merchant(state, session, user, csrf, Permission::ManageTeam, resume).await?;
    let user_id = session::user_id(session)
        .await
        .map_err(failure)?
        .ok_or_else(forbidden)?;
    Ok(Manager {
        user_id,
        merchant_id,
        role: user.role.ok_or_else(forbidden)?,
        by: by_user(user),
    })
}

#[derive(Deserialize)]
pub struct InviteForm {
    csrf: String,
    email: String,
    role: String,
    /// Minted with the form, for the repeat guard (an invitation is no keyed command).
    #[serde(default)]
    idempotency_key: String,
}

/// `POST /settings/team/invitations`: held back as a repeat when another form invited the
/// same email minutes ago (a form sent without a key is not guarded).
pub async fn invite(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    submitted: Submitted,
) -> Response {
    let form: InviteForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let resume = submitted.kept(TEAM, true);
    let manager = match manager(&state, &session, &user, &form.csrf, &resume).await {
        Ok(manager) => manager,
        Err(refused) => return refused,
    };
    let Some(invited_role) = Role::parse(&form.role) else {
        return refused(TEAM, TeamError::NotAllowed);
    };
    let submit = async {
        let (_, token) = team::invite(&state.pool, &manager.actor(), &form.email, invited_role)
            .await
            .map_err(|error| refused(TEAM, error))?;
        let link = format!("/invitations/{token}");
        let mut after = TEAM.to_owned();
        if let Some(mail) = &state.mail {
            let text = invitation_text(&user.email, invited_role, &mail.public_url, &link);
            let to = form.email.trim();
            match mail
                .mailer
                .send(to, "Your invitation to Kaadxpay", text)
                .await
            {
                Ok(()) => {
                    confirm::done(&session, Done::InvitationMailed).await?;
                    return Ok(TEAM.to_owned());
                }
                Err(error) => {
                    tracing::warn!(error = %error, "an invitation could not be mailed; its link is shown instead");
                    after = format!("{TEAM}?invitation=unsent");
                }
            }
        }
        // Shown once, on the next page: only the token's hash is kept.
        session::flash(&state.sealer, &session, &link)
            .await
            .map_err(failure)?;
        Ok(after)
    };
    let guard = (!form.idempotency_key.is_empty()).then(|| Guarded {
        form: "invitation",
        merchant_id: &manager.merchant_id,
        key: &form.idempotency_key,
        same: vec![form.email.trim().to_lowercase()],
        action: "/settings/team/invitations",
    });
    repeats::guarded(&state.pool, &session, &submitted, guard, submit).await
}

/// The mail an invitee gets: who invited them, as what, and the link that works once.
fn invitation_text(inviter: &str, role: Role, public_url: &str, link: &str) -> String {
    format!(
        "{inviter} invites you to their team on Kaadxpay, as {role}.\n\n\
         Choose your password here within 7 days (the link works once):\n{public_url}{link}\n\n\
         If you did not expect this, ignore this mail.\n",
        role = role.as_str()
    )
}

#[derive(Deserialize)]
pub struct RoleForm {
    csrf: String,
    role: String,
}

pub async fn change_role(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Path(member_id): Path<String>,
    Form(form): Form<RoleForm>,
) -> Response {
    let manager = match manager(&state, &session, &user, &form.csrf, &KeptForm::at(TEAM)).await {
        Ok(manager) => manager,
        Err(refused) => return refused,
    };
    let Some(new_role) = Role::parse(&form.role) else {
        return refused(TEAM, TeamError::NotAllowed);
    };
    match team::change_role(&state.pool, &manager.actor(), &member_id, new_role).await {
        Ok(()) => match confirm::done(&session, Done::RoleChanged).await {
            Ok(()) => Redirect::to(TEAM).into_response(),
            Err(answer) => answer,
        },
        Err(error) => refused(TEAM, error),
    }
}

#[derive(Deserialize)]
pub struct CsrfForm {
    csrf: String,
}

/// `POST /settings/team/invitations/{id}/revoke`: the invitation's link stops working (once
/// confirmed).
pub async fn revoke_invitation(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Path(invitation_id): Path<String>,
    submitted: Submitted,
) -> Response {
    let what = Destructive::RevokeInvitation;
    let revoke = async |manager: &Manager| {
        team::revoke_invitation(&state.pool, &manager.actor(), &invitation_id).await
    };
    confirmed_change(&state, &session, &user, &submitted, what, revoke).await
}

/// `POST /settings/team/members/{id}/remove`: the member leaves the team (once confirmed).
pub async fn remove(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Path(member_id): Path<String>,
    submitted: Submitted,
) -> Response {
    let what = Destructive::RemoveMember;
    let remove = async |manager: &Manager| {
        let removed = team::remove(&state.pool, &manager.actor(), &member_id).await;
        // Their keys stopped with them: this process forgets them before it answers.
        state.api_keys.forget_every_key();
        removed
    };
    confirmed_change(&state, &session, &user, &submitted, what, remove).await
}

/// A destructive change to the team: confirmed first on its own page, then made, and said done.
async fn confirmed_change(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    submitted: &Submitted,
    what: Destructive,
    change: impl AsyncFnOnce(&Manager) -> Result<(), TeamError>,
) -> Response {
    let form: CsrfForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let manager = match manager(state, session, user, &form.csrf, &KeptForm::at(TEAM)).await {
        Ok(manager) => manager,
        Err(refused) => return refused,
    };
    if let Some(ask) = confirm::first(session, submitted, Some(what), TEAM).await {
        return ask;
    }
    match change(&manager).await {
        Ok(()) => match confirm::done(session, Done::from(what)).await {
            Ok(()) => Redirect::to(TEAM).into_response(),
            Err(answer) => answer,
        },
        Err(error) => refused(TEAM, error),
    }
}

#[derive(Deserialize)]
pub struct AcceptForm {
    csrf: String,
    password: String,
}

/// Accepts an invitation with the new member's password, once, and signs the member in.
pub async fn accept(
    State(state): State<AppState>,
    session: Session,
    ClientAddress(client): ClientAddress,
    Path(token): Path<String>,
    Form(form): Form<AcceptForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return forbidden();
    }
    let page = format!("/invitations/{token}");
    match team::accept(&state.pool, &token, &form.password, client).await {
        Ok(user_id) => match session::sign_in(&session, &user_id).await {
            Ok(()) => match confirm::done(&session, Done::InvitationAccepted).await {
                Ok(()) => Redirect::to("/").into_response(),
                Err(answer) => answer,
            },
            Err(error) => failure(error),
        },
        Err(error) => refused(&page, error),
    }
}
