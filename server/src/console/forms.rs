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
    Console, ConsoleError, ConsoleResult, CurrentUser, Destructive, Done, EventId, KeptForm,
    OrderId, OrderStatus, PayoutForm, Permission, Refusal,
};
use app::notice::Notice;

use super::confirm;
use super::kept::{self, Submitted};
use super::notices::answer;
use super::repeats::{self, Guarded};
use super::session;
use super::step_up::{recent_second_factor, CodeForm};
use super::views::form_key;
use crate::accounts::two_factor::{self, Checked};
use crate::accounts::users::{self, SignIn};
use crate::edge::client::ClientAddress;
use crate::service::author::Maker;
use crate::service::author::{Actor, By};
use crate::service::state::AppState;

/// Back to `path` with the refusal's code (and field), which the page turns into a sentence.
pub(super) fn with_refusal(path: &str, refusal: &Refusal) -> Response {
    let mut query = format!("error={}", encode(refusal.code.as_str()));
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
/// back to the page of `resume`, the form as typed.
pub(super) async fn stepped_up_merchant(
    state: &AppState,
    session: &Session,
    user: &CurrentUser,
    csrf: &str,
    permission: Permission,
    resume: &KeptForm,
) -> Result<MerchantId, Response> {
    let merchant_id = acting_merchant(session, user, csrf, permission).await?;
    recent_second_factor(state, session, user, resume).await?;
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
        user_id: user.id.to_string(),
        email: user.email.clone(),
        role: Some(role),
    })
}

/// Back to `page` after an action, with the refusal's message when there is one, else noting
/// for that page's notice `what` was done.
pub(super) async fn back_to(
    session: &Session,
    page: &str,
    what: impl Into<Option<Done>>,
    done: ConsoleResult<()>,
) -> Response {
    match done {
        Ok(()) => match confirm::done(session, what).await {
            Ok(()) => Redirect::to(page).into_response(),
            Err(answer) => answer,
        },
        Err(ConsoleError::Refused(refusal)) => with_refusal(page, &refusal),
        Err(error) => failure(error),
    }
}

/// What a change that may have made a secret made: the page to land on, with the secret kept
/// for that page alone to show once (never in an address) and the notice that `what` was done;
/// a refusal goes back to `page` with the form as typed.
pub(super) async fn made_with_secret(
    state: &AppState,
    session: &Session,
    submitted: &Submitted,
    (page, what): (&str, Done),
    done: ConsoleResult<Option<String>>,
) -> Result<String, Response> {
    match done {
        Ok(Some(secret)) => {
            session::flash(&state.sealer, session, &secret)
                .await
                .map_err(failure)?;
            confirm::done(session, what).await?;
            Ok(page.to_owned())
        }
        // The replay of a change that made a secret (a double click) leaves the notes as they
        // are: the first submit's page says what was done and shows the secret.
        Ok(None) if makes_a_secret(what) => Ok(page.to_owned()),
        Ok(None) => {
            confirm::done(session, what).await?;
            Ok(page.to_owned())
        }
        Err(ConsoleError::Refused(refusal)) => {
            Err(kept::refused(session, page, submitted, refusal).await)
        }
        Err(error) => Err(failure(error)),
    }
}

/// Whether the change `what` says was done shows a new secret once (its first submit only).
fn makes_a_secret(what: Done) -> bool {
    matches!(
        what,
        Done::ApiKeyCreated
            | Done::ApiKeyRolled
            | Done::EndpointAdded
            | Done::Confirmed(Destructive::RotateSecret)
    )
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

impl NewPayoutForm {
    /// What makes two payouts the same to the repeat guard: the amount (in minor units when
    /// it reads as one), the currency and the IBAN (without spaces, in capitals).
    fn same(&self) -> Vec<String> {
        let amount = kaadxpay_types::Currency::parse(&self.currency)
            .and_then(|currency| currency.minor_units(&self.amount))
            .map_or_else(|_| self.amount.clone(), |minor| minor.to_string());
        let iban: String = self
            .iban
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect::<String>()
            .to_uppercase();
        vec![amount, self.currency.clone(), iban]
    }
}

const NEW_PAYOUT: &str = "/payouts/new";

/// Every submit of one rendered form (double clicks, Enter twice, a resubmit after Back or
/// while the first is in flight) lands on the same payout's page; a refused one comes back to
/// the form as typed, the reason beside its field; another form of the same payout within ten
/// minutes is held back as a repeat (`repeats`).
pub async fn new_payout(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    submitted: Submitted,
) -> Response {
    let form: NewPayoutForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let permission = Permission::CreatePayouts;
    let resume = submitted.kept(NEW_PAYOUT, true);
    let merchant_id =
        match stepped_up_merchant(&state, &session, &user, &form.csrf, permission, &resume).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let key = match form_key(&form.idempotency_key) {
        Ok(key) => key,
        Err(refusal) => return kept::refused(&session, NEW_PAYOUT, &submitted, refusal).await,
    };
    let guard = Guarded {
        form: "payout",
        merchant_id: &merchant_id,
        key: key.as_str(),
        same: form.same(),
        action: "/payouts",
    };
    let submit = async {
        let typed = PayoutForm {
            idempotency_key: key.clone(),
            amount: form.amount.clone(),
            currency: form.currency.clone(),
            account_holder: form.account_holder.clone(),
            iban: form.iban.clone(),
        };
        match console.submit_payout(&user, &merchant_id, typed).await {
            Ok(id) => {
                confirm::done(&session, Done::PayoutCreated).await?;
                Ok(format!("/payouts/{id}"))
            }
            Err(ConsoleError::Refused(refusal)) => {
                Err(kept::refused(&session, NEW_PAYOUT, &submitted, refusal).await)
            }
            Err(error) => Err(failure(error)),
        }
    };
    repeats::guarded(&state.pool, &session, &submitted, Some(guard), submit).await
}

pub async fn capture_order(
    session: Session,
    user: Extension<CurrentUser>,
    console: Extension<Arc<dyn Console>>,
    Path(id): Path<OrderId>,
    submitted: Submitted,
) -> Response {
    set_order_status(session, user, console, id, submitted, OrderStatus::Captured).await
}

/// Cancels the order once confirmed on its own page.
pub async fn cancel_order(
    session: Session,
    user: Extension<CurrentUser>,
    console: Extension<Arc<dyn Console>>,
    Path(id): Path<OrderId>,
    submitted: Submitted,
) -> Response {
    set_order_status(
        session,
        user,
        console,
        id,
        submitted,
        OrderStatus::Cancelled,
    )
    .await
}

async fn set_order_status(
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    id: OrderId,
    submitted: Submitted,
    to: OrderStatus,
) -> Response {
    let form: CsrfOnly = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::ManageOrders).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let page = format!("/orders/{id}");
    let cancel = (to == OrderStatus::Cancelled).then_some(Destructive::CancelOrder);
    if let Some(ask) = confirm::first(&session, &submitted, cancel, &page).await {
        return ask;
    }
    let changed = console.set_order_status(&user, &merchant_id, &id, to).await;
    let done = cancel.map_or(Done::OrderCaptured, Done::from);
    back_to(&session, &page, done, changed).await
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
    Path(event_id): Path<EventId>,
    Form(form): Form<RedeliverForm>,
) -> Response {
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::ManageIntegrations).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let redelivered = match form_key(&form.idempotency_key) {
        Ok(key) => {
            console
                .redeliver(&user, &merchant_id, &event_id, &key)
                .await
        }
        Err(refusal) => Err(refusal.into()),
    };
    back_to(&session, "/webhooks", Done::EventRedelivered, redelivered).await
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
    let Ok(date) = form.date.parse() else {
        return with_refusal("/reconciliation", &Refusal::invalid("date"));
    };
    let run = match form_key(&form.idempotency_key) {
        Ok(key) => console.run_reconciliation(&user, date, &key).await,
        Err(refusal) => Err(refusal.into()),
    };
    match run {
        Ok(run_id) => match confirm::done(&session, Done::ReconciliationRun).await {
            Ok(()) => Redirect::to(&format!("/reconciliation/{run_id}")).into_response(),
            Err(answer) => answer,
        },
        Err(ConsoleError::Refused(refusal)) => with_refusal("/reconciliation", &refusal),
        Err(error) => failure(error),
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
