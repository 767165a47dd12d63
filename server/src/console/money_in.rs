//! The form of `/balance/add-funds` (what the page shows is `backend`'s `MoneyInConsole`): in
//! test mode, "Simulate incoming transfer" makes the partner bank simulator receive money with the
//! member's merchant's reference (for members whose role may move money, checked here; support
//! staff change nothing). The money lands as a top-up through the simulator's
//! `transfer.received`, the path of any money in; every answer is a `303` back to the page.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{CurrentUser, Money, Permission, ADD_FUNDS};

use super::forms::{acting_merchant, failure, with_refusal};
use super::views::invalid;
use crate::payments::money::{Amount, Currency};
use crate::payments::top_ups;
use crate::service::state::AppState;

#[derive(Deserialize)]
pub struct SimulateForm {
    csrf: String,
    /// In major units as people write them (`12.50`, `12,50`).
    amount: String,
    currency: String,
}

/// "Simulate incoming transfer": back to the page saying what the partner bank received, or
/// with the refusal.
pub async fn simulate(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Form(form): Form<SimulateForm>,
) -> Response {
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::CreatePayouts).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let Ok(currency) = Currency::try_from(form.currency.clone()) else {
        return with_refusal(ADD_FUNDS, &invalid("currency"));
    };
    let amount = currency
        .minor_units(&form.amount)
        .ok()
        .and_then(|minor_units| Amount::try_from(minor_units).ok());
    let Some(amount) = amount else {
        return with_refusal(ADD_FUNDS, &invalid("amount"));
    };
    let sent = top_ups::simulate_incoming(
        &state.pool,
        &state.partner,
        &state.test_mode,
        &merchant_id,
        amount,
        currency,
    )
    .await;
    match sent {
        Ok(incoming) => {
            let shown = Money {
                amount: incoming.amount,
                currency: incoming.currency,
            };
            let shown = format!("{} {}", shown.decimal(), shown.currency);
            let query = url_encode(&shown);
            Redirect::to(&format!("{ADD_FUNDS}?sent={query}")).into_response()
        }
        Err(crate::contract::error::Error::Forbidden(_)) => {
            with_refusal(ADD_FUNDS, &app::console::Refusal::new("not_allowed"))
        }
        Err(error) => failure(error),
    }
}

fn url_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}
