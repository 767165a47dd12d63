//! The forms of payout approvals: "Approve" and "Reject" on a payout awaiting approval (members
//! whose role may create payouts, never the payout's own member, who gets a `403` page saying
//! why), "Cancel" (its own member, an owner or an admin),
//! and the approval thresholds of `/settings/payouts` (owners and admins), each with a recent
//! second factor when the member has one. Each answers a `303`
//! like every form; a decision runs under the key its form was rendered with, so double clicks
//! and two members at once make one outcome.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{
    Console, ConsoleError, Currency, CurrentUser, Decision, Destructive, Done, ErrorCode, KeptForm,
    PayoutId, Permission,
};
use app::notice::Notice;

use super::confirm;
use super::forms::{back_to, failure, stepped_up_merchant};
use super::kept::Submitted;
use super::notices::answer;
use super::views::form_key;
use crate::service::state::AppState;

const SETTINGS: &str = "/settings/payouts";

#[derive(Deserialize)]
pub struct DecisionForm {
    csrf: String,
    idempotency_key: String,
}

/// "Approve" (`/payouts/{id}/approve`) or "Reject" (`/payouts/{id}/reject`): back to the
/// payout's page once decided (or already decided by this form); a `403` page for a member
/// whose role may not, or who created the payout.
pub async fn decide(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Path((id, verb)): Path<(PayoutId, String)>,
    submitted: Submitted,
) -> Response {
    let form: DecisionForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let decision = match verb.as_str() {
        "approve" => Decision::Approve,
        "reject" => Decision::Reject,
        "cancel" => Decision::Cancel,
        _ => return answer(StatusCode::NOT_FOUND, Notice::NotFound),
    };
    let page = format!("/payouts/{id}");
    let permission = Permission::CreatePayouts;
    let resume = KeptForm::at(&page);
    let merchant_id =
        match stepped_up_merchant(&state, &session, &user, &form.csrf, permission, &resume).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let destructive = match decision {
        Decision::Approve => None,
        Decision::Reject => Some(Destructive::RejectPayout),
        Decision::Cancel => Some(Destructive::CancelPayout),
    };
    // Asked only of a member who may make it: anyone else is refused as before.
    let may = match console.payout(&merchant_id, &id).await {
        Ok(Some(payout)) => console.decisions(&user, &payout).contains(&decision),
        Ok(None) => false,
        Err(error) => return failure(error),
    };
    if let Some(ask) =
        confirm::first(&session, &submitted, destructive.filter(|_| may), &page).await
    {
        return ask;
    }
    let decided = match form_key(&form.idempotency_key) {
        Ok(key) => {
            console
                .decide_payout(&user, &merchant_id, &id, decision, &key)
                .await
        }
        Err(refusal) => Err(refusal.into()),
    };
    match decided {
        Err(ConsoleError::Refused(refusal)) if refusal.code == ErrorCode::Forbidden => {
            answer(StatusCode::FORBIDDEN, Notice::OwnPayout)
        }
        Ok(()) => match confirm::done(
            &session,
            destructive.map_or(Done::PayoutApproved, Done::from),
        )
        .await
        {
            Ok(()) => Redirect::to(&page).into_response(),
            Err(answer) => answer,
        },
        other => back_to(&session, &page, None::<Done>, other).await,
    }
}

#[derive(Deserialize)]
pub struct ThresholdForm {
    csrf: String,
    currency: String,
    /// Major units as typed (`500.00`); empty removes the currency's threshold.
    amount: String,
}

pub async fn set_threshold(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Form(form): Form<ThresholdForm>,
) -> Response {
    let permission = Permission::ManageThresholds;
    let resume = KeptForm::at(SETTINGS);
    let merchant_id =
        match stepped_up_merchant(&state, &session, &user, &form.csrf, permission, &resume).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let Ok(currency) = Currency::try_from(form.currency.clone()) else {
        let refused = Err(super::views::invalid("currency").into());
        return back_to(&session, SETTINGS, None::<Done>, refused).await;
    };
    let changed = console
        .change_threshold(&user, &merchant_id, currency, &form.amount)
        .await;
    if form.amount.trim().is_empty() {
        return back_to(&session, SETTINGS, Done::ThresholdRemoved, changed).await;
    }
    if !matches!(changed, Ok(())) {
        return back_to(&session, SETTINGS, None::<Done>, changed).await;
    }
    if let Err(answer) = confirm::done(&session, Done::ThresholdSaved).await {
        return answer;
    }
    // Saved, and nobody else could approve what it holds back: it says so.
    match console.another_approver(&user, &merchant_id).await {
        Ok(true) => Redirect::to(SETTINGS).into_response(),
        Ok(false) => Redirect::to(&format!("{SETTINGS}?warning=alone")).into_response(),
        Err(error) => failure(error),
    }
}
