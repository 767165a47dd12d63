//! The order page's "Refund" form: for members whose role may capture (API.md §13), one
//! rendered form makes one refund (its minted key), a refused one comes back to the order's
//! page as typed with the reason beside its field, and another form refunding the same amount
//! to the same IBAN within ten minutes is held back as a repeat (`repeats`); the order's page
//! then says the refund was created.

use std::sync::Arc;

use app::console::{Console, ConsoleError, CurrentUser, Done, OrderId, Permission, RefundForm};
use axum::extract::{Path, State};
use axum::response::{IntoResponse, Response};
use axum::Extension;
use serde::Deserialize;
use tower_sessions::Session;

use super::confirm;
use super::forms::acting_merchant;
use super::kept::{self, Submitted};
use super::notices::failure;
use super::repeats::{self, Guarded};
use super::views::form_key;
use crate::service::state::AppState;

#[derive(Deserialize)]
pub struct RefundOrderForm {
    csrf: String,
    idempotency_key: String,
    #[serde(default)]
    amount: String,
    account_holder: String,
    iban: String,
}

impl RefundOrderForm {
    /// What makes two refunds the same to the repeat guard: the order, the amount as typed
    /// without spaces (empty: all that is left) and the IBAN (without spaces, in capitals).
    fn same(&self, order: &OrderId) -> Vec<String> {
        let bare = |text: &str| {
            text.chars()
                .filter(|c| !c.is_whitespace())
                .collect::<String>()
        };
        let amount = bare(&self.amount).replace(',', ".");
        vec![order.to_string(), amount, bare(&self.iban).to_uppercase()]
    }
}

pub async fn refund_order(
    State(state): State<AppState>,
    session: Session,
    Extension(user): Extension<CurrentUser>,
    Extension(console): Extension<Arc<dyn Console>>,
    Path(order): Path<OrderId>,
    submitted: Submitted,
) -> Response {
    let form: RefundOrderForm = match submitted.parse() {
        Ok(form) => form,
        Err(not_ours) => return not_ours.into_response(),
    };
    let merchant_id =
        match acting_merchant(&session, &user, &form.csrf, Permission::ManageOrders).await {
            Ok(merchant_id) => merchant_id,
            Err(refused) => return refused,
        };
    let page = format!("/orders/{order}");
    let key = match form_key(&form.idempotency_key) {
        Ok(key) => key,
        Err(refusal) => return kept::refused(&session, &page, &submitted, refusal).await,
    };
    let guard = Guarded {
        form: "refund",
        merchant_id: &merchant_id,
        key: key.as_str(),
        same: form.same(&order),
        action: &format!("{page}/refunds"),
    };
    let submit = async {
        let typed = RefundForm {
            idempotency_key: key.clone(),
            amount: form.amount.clone(),
            account_holder: form.account_holder.clone(),
            iban: form.iban.clone(),
        };
        match console
            .submit_refund(&user, &merchant_id, &order, typed)
            .await
        {
            Ok(_) => {
                confirm::done(&session, Done::RefundCreated).await?;
                Ok(page.clone())
            }
            Err(ConsoleError::Refused(refusal)) => {
                Err(kept::refused(&session, &page, &submitted, refusal).await)
            }
            Err(error) => Err(failure(error)),
        }
    };
    repeats::guarded(&state.pool, &session, &submitted, Some(guard), submit).await
}
