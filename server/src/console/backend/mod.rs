//! The `Console` trait over the domain (with [`super::views`] for what pages show and
//! [`super::filters`] for what their addresses ask). Its pages read through the same
//! domain functions as the JSON API, and its payout form and Redeliver button run the same
//! commands through the same engine (`commands::run`) as `POST /v1/payouts` and
//! `POST /v1/events/{event_id}/redeliver`, so a console payout's key shows up in the key
//! look-up and the API. "Run reconciliation now" runs the reconciler's idempotent run on
//! request. It renders what became of a command as a page, never as HTTP. One module per area
//! of the console's traits.

mod balance_area;
mod history_area;
mod integrations_area;
mod money_in_area;
mod orders_area;
mod payouts_area;
mod reconciliation_area;
mod refunds_area;
mod team_area;

use std::time::Duration;

use app::console::*;
use async_trait::async_trait;

use super::filters::{
    audit_filters, day_filter, list_filters, page, page_of, paged, request_filters,
};
use super::forms::{by_user, maker_of};
use super::views::{
    actor, api_key_row, audit_entry, balance_view, failed, invalid, keyed_endpoint, known, listed,
    moneys, object, order_row, payout_row, refund_row, refusal, request_view, run_row,
    statement_row, stored_key, timeline_entry,
};
use crate::accounts::auth::keys::{self as api_keys, CreateKey, RollKey};
use crate::accounts::auth::Secret;
use crate::accounts::{team, two_factor};
use crate::contract::error::{stored_refusal, Error};
use crate::contract::input;
use crate::contract::pagination::{Filters as ListFilters, MAX_LIMIT};
use crate::history::audit::{self, Action, Entry};
use crate::history::search::{self, Kind};
use crate::history::timeline::{self, Resource as TimelineResource};
use crate::idempotency::{
    last_hours, record, sealed, IdempotencyKey, Outcome, Resource, StoredResponse,
};
use crate::payments::approvals::{self, ApprovePayout, CancelPayout, RejectPayout};
use crate::payments::balance;
use crate::payments::events::KnownEventType;
use crate::payments::money::{Amount, Currency};
use crate::payments::orders::{self, Order, Target};
use crate::payments::payouts::{self, CreatePayout};
use crate::payments::refunds::{self, CreateRefund};
use crate::payments::statement::{self, StatementFilters};
use crate::payments::thresholds;
use crate::reconcile::on_request::{Requester, RunNowError};
use crate::reconcile::{self, Reconciler};
use crate::request_log::noted;
use crate::request_log::query as request_log;
use crate::service::commands::{self, Caller, Command};
use crate::service::keyed;
use crate::service::state::AppState;
use crate::webhooks::endpoints::CreateEndpoint;
use crate::webhooks::events::RedeliverEvent;
use crate::webhooks::management::{
    self, Overlap, Recover, RotateSecret, SendTestEvent, UpdateEndpoint,
};
use crate::webhooks::{attempt, endpoints, events, signature};
use kaadxpay_partner_sim::scenarios::MAGIC_IBANS;

const PAGE_SIZE: i64 = 20;
const RECENT: i64 = 5;
/// How long a submit waits for an earlier submit of the same form that is still in flight.
const IN_FLIGHT_WAIT: Duration = Duration::from_secs(8);

pub struct PgConsole {
    pub state: AppState,
}

/// The new-payout form parsed by the API's own reader ([`input::command`]) from the body
/// `POST /v1/payouts` would carry: the amount typed in major units (`12.50`, `12,50`,
/// `1 234.50`) in minor units of the chosen currency, the holder and IBAN as the destination.
/// A refusal names the field as the API does (`amount`, `destination[iban]`).
fn payout_command(form: PayoutForm) -> Result<CreatePayout, Refusal> {
    let currency = Currency::parse(&form.currency).map_err(|_| invalid("currency"))?;
    let amount = currency
        .minor_units(&form.amount)
        .map_err(|_| invalid("amount"))?;
    let body = serde_json::json!({
        "amount": amount,
        "currency": currency,
        "destination": { "account_holder": form.account_holder, "iban": form.iban },
    });
    input::command(&body).map_err(|error| refusal(&error))
}

/// A threshold typed in major units of `currency`, as the settings form's Amount reads it.
fn typed_amount(currency: Currency, typed: &str) -> Result<Amount, Refusal> {
    let minor_units = currency.minor_units(typed).map_err(|_| invalid("amount"))?;
    Amount::try_from(minor_units).map_err(|_| invalid("amount"))
}

/// The answer a command run from the console stored, and whether this submit executed it
/// (`false` for a replay).
struct Answer {
    stored: StoredResponse,
    executed_now: bool,
}

impl Answer {
    /// The stored answer, or the refusal it stands for (a failure when its code is none the
    /// console knows).
    fn of(stored: StoredResponse, executed_now: bool) -> ConsoleResult<Self> {
        match stored_refusal(&stored) {
            Some((code, param)) => Err(Refusal {
                code: known(code)?,
                param,
            }
            .into()),
            None => Ok(Answer {
                stored,
                executed_now,
            }),
        }
    }
}

impl PgConsole {
    /// Runs `command` under `key`; an earlier run of the same form that is still in flight is
    /// waited for (up to [`IN_FLIGHT_WAIT`]), so a double click shows the one result. Refused
    /// when the key was reused, the request failed validation or its answer is a refusal.
    async fn run<C: Command>(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        key: &IdempotencyKey,
        command: &C,
    ) -> ConsoleResult<Answer> {
        let (by, maker) = (by_user(user), maker_of(user));
        let caller = Caller {
            merchant_id,
            key,
            request_id: "console",
            by: &by,
            maker: maker.as_ref(),
            sealer: &self.state.sealer,
        };
        let deadline = tokio::time::Instant::now() + IN_FLIGHT_WAIT;
        loop {
            let outcome = commands::run(&self.state, &caller, command).await;
            if let Ok(outcome) = &outcome {
                noted::note(key.as_str(), outcome.verdict());
            }
            match outcome {
                Ok(Outcome::Executed(stored)) => return Answer::of(stored, true),
                Ok(Outcome::Replayed(stored)) => return Answer::of(stored, false),
                Ok(Outcome::InProgress) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok(Outcome::InProgress) => {
                    return Err(refusal(&Error::IdempotencyRequestInProgress).into())
                }
                Ok(Outcome::KeyReused(reuse)) => return Err(refusal(&Error::from(reuse)).into()),
                Ok(Outcome::Interrupted(error)) | Err(error) if error.is_definitive() => {
                    return Err(refusal(&error).into())
                }
                Ok(Outcome::Interrupted(error)) | Err(error) => return Err(failed(error)),
            }
        }
    }
}

/// A balance's available amounts as money to show.
/// Whether `user` may make `decision` on a payout that counts as `accountable`'s (the server's
/// rule, asked before the command runs and when the page offers the buttons).
fn may_make(
    user: &CurrentUser,
    accountable: Option<&str>,
    decision: Decision,
) -> Result<(), approvals::NotADecider> {
    match decision {
        Decision::Approve | Decision::Reject => {
            approvals::may_decide(user.role, &by_user(user).actor, accountable)
        }
        Decision::Cancel => approvals::may_cancel(maker_of(user).as_ref(), accountable),
    }
}

/// The body of the answer a key's record stands for: its recorded bytes (opened if sealed), or,
/// for a `201` of the one-commit path (recorded as a reference to what it made), that answer
/// rendered again by the command of the record's endpoint, as a replay would. `None` while
/// there is no answer yet.
async fn recorded_answer(
    state: &AppState,
    merchant_id: &MerchantId,
    record: &record::KeyRecord,
) -> Result<Option<Vec<u8>>, Error> {
    if let Some(bytes) = &record.response_body {
        let opened = sealed::open(
            &state.sealer,
            merchant_id.as_str(),
            &record.key,
            bytes.clone(),
        )
        .map_err(anyhow::Error::from)?;
        return Ok(Some(opened));
    }
    let Some(link) = &record.resource else {
        return Ok(None);
    };
    let resource = Resource::new(&link.kind, &link.id);
    match keyed::render(state, &record.endpoint, merchant_id, resource).await {
        Some(rendered) => Ok(Some(rendered?.body)),
        None => Ok(None),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What the console makes of a stored `402` whose body names `code` (and the amount).
    fn stored_refusal_of(code: &str) -> ConsoleResult<Answer> {
        let body =
            serde_json::json!({"error": {"code": code, "message": "No.", "param": "amount"}});
        let stored = StoredResponse {
            status: 402,
            location: None,
            body: serde_json::to_vec(&body).unwrap(),
            resource: None,
            renders_again: false,
        };
        Answer::of(stored, false)
    }

    #[test]
    fn a_stored_refusal_comes_back_typed_and_an_unknown_code_is_a_failure() {
        let refused = stored_refusal_of("insufficient_funds");
        let expected = Refusal {
            code: ErrorCode::InsufficientFunds,
            param: Some("amount".to_owned()),
        };
        assert!(matches!(refused, Err(ConsoleError::Refused(refusal)) if refusal == expected));
        let unknown = stored_refusal_of("no_such_code");
        assert!(matches!(unknown, Err(ConsoleError::Failed(why)) if why.contains("no_such_code")));
    }
}
