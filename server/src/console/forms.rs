//! The console's forms: plain HTML `POST`s answered with a `303` to the page to show next, so
//! they work with JavaScript off and a reload never resubmits. Each checks the session's CSRF
//! token first; changes go through the `Console` trait like everything the pages show.

use kaadxpay_types::ids::MerchantId;
use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use percent_encoding::{utf8_percent_encode, NON_ALPHANUMERIC};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{
    Console, ConsoleResult, CurrentUser, OrderStatus, PayoutForm, Permission, Refusal, Submission,
};
use app::notice::Notice;

use super::notices::answer;
use super::session;
use super::step_up::{recent_second_factor, CodeForm};
use crate::accounts::two_factor::{self, Checked};
use crate::accounts::users::{self, SignIn};
use crate::edge::client::ClientAddress;
use crate::service::author::Maker;
use crate::service::author::{Actor, By};
use crate::service::state::AppState;

/// Back to `path` with the refusal's code (and field), which the page turns into a sentence.
pub(super) fn with_refusal(path: &str, refusal: &Refusal) -> Response {
    let mut query = format!("error={}", encode(&refusal.code));
    if let Some(param) = &refusal.param {
        query.push_str(&format!("&param={}", encode(param)));
    }
    Redirect::to(&format!("{path}?{query}")).into_response()
}

fn encode(text: &str) -> String {
    utf8_percent_encode(text, NON_ALPHANUMERIC).to_string()
}

pub(super) use super::notices::{failure, forbidden};

/// [`acting_merchant`], for a change that also needs a second factor given recently (when the
/// member has one, or the merchant requires one): else the answer asks for a code and comes
/// back to `back`.
pub(super) async fn stepped_up_merchant(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    csrf: &str,
    permission: Permission,
    back: &str,
) -> Result<MerchantId, Response> {
    let merchant_id = acting_merchant(session, user, csrf, permission).await?;
    recent_second_factor(state, session, user, back).await?;
    Ok(merchant_id)
}

/// The merchant a form acts for, once its CSRF token checks out and the member's role allows
/// `permission` (support staff change nothing).
pub(super) async fn acting_merchant(
    session: &Session,
    user: &CurrentUser,
    csrf: &str,
    permission: Permission,
) -> Result<MerchantId, Response> {
    if !session::csrf_matches(session, csrf).await {
        return Err(forbidden());
    }
    let merchant_id = user.merchant_id.clone().ok_or_else(forbidden)?;
    if !user.may(permission) {
        return Err(answer(
            StatusCode::FORBIDDEN,
            Notice::NotForRole(permission),
        ));
    }
    Ok(merchant_id)
}

/// The signed-in user as the audit log names it: support staff or a member, by email, and the
/// address the request came from.
pub(super) fn by_user(user: &CurrentUser) -> By {
    let actor = match user.is_support() {
        true => Actor::Support(user.email.clone()),
        false => Actor::User(user.email.clone()),
    };
    By {
        actor,
        address: user.address,
    }
}

/// The member the user's changes answer to, with its role; `None` for support staff.
pub(super) fn maker_of(user: &CurrentUser) -> Option<Maker> {
    user.role.map(|role| Maker {
        user_id: user.id.clone(),
        email: user.email.clone(),
        role: Some(role),
    })
}

/// Back to `page` after an action, with the refusal's message when there is one.
pub(super) fn back_to(page: &str, done: ConsoleResult<Result<(), Refusal>>) -> Response {
    match done {
        Ok(Ok(())) => Redirect::to(page).into_response(),
        Ok(Err(refusal)) => with_refusal(page, &refusal),
        Err(error) => failure(error.0),
    }
}

/// Back to `page` after a change that may have made a secret: the secret is kept for that page
/// alone to show once (never in an address); a refusal goes in the address.
pub(super) async fn back_with_secret(
    state: &AppState,
    session: &Session,
    page: &str,
    done: ConsoleResult<Result<Option<String>, Refusal>>,
) -> Response {
    match done {
        Ok(Ok(secret)) => {
            if let Some(secret) = secret {
                if let Err(error) = session::flash(&state.sealer, session, &secret).await {
                    return failure(error);
                }
            }
            Redirect::to(page).into_response()
        }
        Ok(Err(refusal)) => with_refusal(page, &refusal),
        Err(error) => failure(error.0),
    }
}

#[derive(Deserialize)]
pub struct LoginForm {
    csrf: String,
    email: String,
    password: String,
}

pub async fn login(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    session: Session,
    Form(form): Form<LoginForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return Redirect::to("/login?error=expired").into_response();
    }
    match users::sign_in(&state.pool, &form.email, &form.password, client).await {
        Ok(SignIn::Accepted(user_id)) => signed_in(&state, &session, &user_id).await,
        Ok(SignIn::SecondFactor(user_id)) => {
            match session::await_second_factor(&session, &user_id).await {
                Ok(()) => Redirect::to("/login").into_response(),
                Err(err) => failure(err),
            }
        }
        Ok(SignIn::Refused) => Redirect::to("/login?error=invalid").into_response(),
        Ok(SignIn::Throttled) => Redirect::to("/login?error=throttled").into_response(),
        Err(err) => failure(err),
    }
}

/// Signs `user_id` in and sends it to its start page.
async fn signed_in(state: &AppState, session: &Session, user_id: &str) -> Response {
    if let Err(err) = session::sign_in(session, user_id).await {
        return failure(err);
    }
    let home = match users::find(&state.pool, user_id).await {
        Ok(Some(user)) if user.merchant_id.is_none() => "/support",
        _ => "/",
    };
    Redirect::to(home).into_response()
}

/// The second step of a sign-in (`POST /login/code`): the code of the user whose password was
/// right, or one of its recovery codes (once). Wrong codes count in the sign-in throttle.
pub async fn login_code(
    State(state): State<AppState>,
    ClientAddress(client): ClientAddress,
    session: Session,
    Form(form): Form<CodeForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return Redirect::to("/login?error=expired").into_response();
    }
    let user = match session::pending_user_id(&session).await {
        Ok(Some(user_id)) => users::find(&state.pool, &user_id).await,
        Ok(None) => return Redirect::to("/login?error=expired").into_response(),
        Err(err) => return failure(err),
    };
    let user = match user {
        Ok(Some(user)) => user,
        Ok(None) => return Redirect::to("/login?error=expired").into_response(),
        Err(err) => return failure(err),
    };
    let checked = two_factor::sign_in(&state.pool, &state.sealer, &user, &form.code, client);
    match checked.await {
        Ok(Checked::Accepted(_)) => {
            let answer = signed_in(&state, &session, &user.id).await;
            match session::second_factor_given(&session).await {
                Ok(()) => answer,
                Err(err) => failure(err),
            }
        }
        Ok(Checked::Refused) => Redirect::to("/login?error=code").into_response(),
        Ok(Checked::Throttled) => Redirect::to("/login?error=throttled").into_response(),
        Err(err) => failure(err),
    }
}

#[derive(Deserialize)]
pub struct CsrfOnly {
    csrf: String,
}

pub async fn logout(session: Session, Form(form): Form<CsrfOnly>) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return forbidden();
    }
    match session.flush().await {
        Ok(()) => Redirect::to("/login").into_response(),
        Err(err) => failure(err),
    }
}

#[derive(Deserialize)]
pub struct NewPayoutForm {
    csrf: String,
    idempotency_key: String,
    amount: String,
    currency: String,
    account_holder: String,
    iban: String,
}

/// Every submit of one rendered form (double clicks, Enter twice, a resubmit after Back or
/// while the first is in flight) lands on the same payout's page.
pub async fn new_payout(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Form(form): Form<NewPayoutForm>,
) -> Response {
    let permission = Permission::CreatePayouts;
    let back = "/payouts/new";
    let merchant_id =
        match stepped_up_merchant(&state, &session, &user, &form.csrf, permission, back).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let submitted = PayoutForm {
        idempotency_key: form.idempotency_key,
        amount: form.amount,
        currency: form.currency,
        account_holder: form.account_holder,
        iban: form.iban,
    };
    match console.submit_payout(&user, &merchant_id, submitted).await {
        Ok(Submission::Payout(id)) => Redirect::to(&format!("/payouts/{id}")).into_response(),
        Ok(Submission::Refused(refusal)) => with_refusal("/payouts/new", &refusal),
        Err(error) => failure(error.0),
    }
}

pub async fn capture_order(
    session: Session,
    user: Extension<CurrentUser>,
    console: Extension<Arc<dyn Console>>,
    Path(id): Path<String>,
    Form(form): Form<CsrfOnly>,
) -> Response {
    set_order_status(session, user, console, id, form, OrderStatus::Captured).await
}

pub async fn cancel_order(
    session: Session,
    user: Extension<CurrentUser>,
    console: Extension<Arc<dyn Console>>,
    Path(id): Path<String>,
    Form(form): Form<CsrfOnly>,
) -> Response {
    set_order_status(session, user, console, id, form, OrderStatus::Cancelled).await
}

async fn set_order_status(
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    id: String,
    form: CsrfOnly,
    to: OrderStatus,
) -> Response {
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::ManageOrders).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let changed = console.set_order_status(&user, &merchant_id, &id, to).await;
    back_to(&format!("/orders/{id}"), changed)
}

#[derive(Deserialize)]
pub struct RedeliverForm {
    csrf: String,
    idempotency_key: String,
}

pub async fn redeliver_event(
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Path(event_id): Path<String>,
    Form(form): Form<RedeliverForm>,
) -> Response {
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::ManageIntegrations).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let redelivered = console
        .redeliver(&user, &merchant_id, &event_id, &form.idempotency_key)
        .await;
    back_to("/webhooks", redelivered)
}

#[derive(Deserialize)]
pub struct RunNowForm {
    csrf: String,
    idempotency_key: String,
    date: String,
}

/// "Run reconciliation now" (support staff, or anyone in test mode: the backend checks); every
/// submit of one rendered form lands on the one run's page.
pub async fn run_reconciliation(
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Form(form): Form<RunNowForm>,
) -> Response {
    if !session::csrf_matches(&session, &form.csrf).await {
        return forbidden();
    }
    match console
        .run_reconciliation(&user, &form.date, &form.idempotency_key)
        .await
    {
        Ok(Ok(run_id)) => Redirect::to(&format!("/reconciliation/{run_id}")).into_response(),
        Ok(Err(refusal)) => with_refusal("/reconciliation", &refusal),
        Err(error) => failure(error.0),
    }
}

#[derive(Deserialize)]
pub struct LanguageForm {
    lang: String,
    back: String,
}

/// The nav's language switch (`GET /language?lang=…&back=…`, open to visitors too: it changes
/// only how pages read): remembers the language in a cookie and sends the browser back to the
/// page it came from, on this site only.
pub async fn language(secure_cookies: bool, Query(form): Query<LanguageForm>) -> Response {
    let Some(lang) = app::i18n::Lang::from_tag(&form.lang) else {
        return (StatusCode::BAD_REQUEST, "Unknown language.").into_response();
    };
    (
        [(
            axum::http::header::SET_COOKIE,
            app::i18n::cookie(lang, secure_cookies),
        )],
        Redirect::to(app::i18n::same_site_path(&form.back)),
    )
        .into_response()
}
