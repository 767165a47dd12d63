//! The console's money-in area: [`PgMoneyIn`], what `/balance/add-funds` shows, over the same
//! domain as `GET /v1/funding-account` and `GET /v1/top-ups`; and the page's test-mode form,
//! "Simulate incoming transfer", which makes the partner bank simulator receive money with the
//! member's merchant's reference (for members whose role may move money, checked here; support
//! staff change nothing). The money lands as a top-up through the simulator's
//! `transfer.received`, the path of any money in; every answer is a `303` back to the page.

use axum::extract::State;
use axum::response::{IntoResponse, Redirect, Response};
use axum::{Extension, Form};
use serde::Deserialize;
use tower_sessions::Session;

use app::console::{ConsoleError, ConsoleResult, CurrentUser, Money, Permission};
use app::money_in::{FundingAccountView, MoneyIn, TopUpRow, ADD_FUNDS, RECENT_TOP_UPS};
use kaadxpay_types::ids::MerchantId;

use super::forms::{acting_merchant, failure, with_refusal};
use super::views::invalid;
use crate::contract::pagination::Page;
use crate::payments::money::{Amount, Currency};
use crate::payments::top_ups;
use crate::service::state::AppState;

/// The money-in backend of one console.
pub struct PgMoneyIn {
    pub state: AppState,
}

fn failed(error: impl std::fmt::Display) -> ConsoleError {
    tracing::error!(error = %error, "the console's money-in backend failed");
    ConsoleError::Failed("The page could not be read.".to_owned())
}

#[async_trait::async_trait]
impl MoneyIn for PgMoneyIn {
    async fn funding_account(&self, merchant_id: &MerchantId) -> ConsoleResult<FundingAccountView> {
        let account = top_ups::funding_account(&self.state.pool, &self.state.funding, merchant_id)
            .await
            .map_err(failed)?;
        Ok(FundingAccountView {
            iban: account.iban,
            account_holder: account.account_holder,
            reference: account.reference,
        })
    }

    async fn recent_top_ups(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<TopUpRow>> {
        let page = Page {
            limit: RECENT_TOP_UPS,
            starting_after: None,
        };
        let rows = top_ups::list(&self.state.pool, merchant_id, &page)
            .await
            .map_err(failed)?;
        Ok(rows
            .into_iter()
            .take(RECENT_TOP_UPS as usize)
            .map(|top_up| TopUpRow {
                id: top_up.id.to_string(),
                money: Money {
                    amount: top_up.amount,
                    currency: top_up.currency,
                },
                partner_incoming_id: top_up.partner_incoming_id,
                created_at: top_up.created_at,
            })
            .collect())
    }

    async fn can_simulate(&self) -> bool {
        self.state.test_mode.is_on().await
    }
}

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
