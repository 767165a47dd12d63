//! The form of `/balance/add-funds` (what the page shows is `backend`'s `MoneyInConsole`): in
//! test mode, "Simulate incoming transfer" makes the partner bank simulator receive money with the
//! member's merchant's reference (for members whose role may move money, checked here; support
//! staff change nothing). The money lands as a top-up through the simulator's
//! `transfer.received`, the path of any money in; every answer is a `303` back to the page (a
//! refused one with the form as typed, the reason beside its field).
//! One rendered form sends money once (its minted `idempotency_key`, claimed by the repeat
//! guard, since the simulator takes no key), and the same amount again from another form within
//! ten minutes is held back as a repeat.

use axum::extract::State;
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{CurrentUser, ErrorCode, Money, Permission, ADD_FUNDS};

use super::forms::{acting_merchant, failure};
use super::kept::{self, NotOurForm, Submitted};
use super::repeats::{self, Guarded};
use super::views::invalid;
use crate::payments::money::{Amount, Currency};
use crate::payments::top_ups;
use crate::service::state::AppState;

#[derive(Deserialize)]
pub struct SimulateForm {
    csrf: String,
    idempotency_key: String,
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
    submitted: Submitted,
) -> Response {
    let form = match submitted.parse::<SimulateForm>() {
        Ok(form) if !form.idempotency_key.is_empty() => form,
        _ => return NotOurForm.into_response(),
    };
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::CreatePayouts).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let refused = |refusal| kept::refused(&session, ADD_FUNDS, &submitted, refusal);
    let Ok(currency) = Currency::try_from(form.currency.clone()) else {
        return refused(invalid("currency")).await;
    };
    let amount = currency
        .minor_units(&form.amount)
        .ok()
        .and_then(|minor_units| Amount::try_from(minor_units).ok());
    let Some(amount) = amount else {
        return refused(invalid("amount")).await;
    };
    let guard = Guarded {
        form: "incoming_transfer",
        merchant_id: &merchant_id,
        key: &form.idempotency_key,
        same: vec![amount.minor_units().to_string(), currency.code().to_owned()],
        action: ADD_FUNDS,
    };
    let submit = async {
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
                Ok(format!("{ADD_FUNDS}?sent={}", url_encode(&shown)))
            }
            Err(crate::contract::error::Error::Forbidden(_)) => {
                Err(refused(app::console::Refusal::new(ErrorCode::NotAllowed)).await)
            }
            Err(error) => Err(failure(error)),
        }
    };
    repeats::guarded(&state.pool, &session, &submitted, Some(guard), submit).await
}

fn url_encode(text: &str) -> String {
    percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC).to_string()
}
