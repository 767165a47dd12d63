//! What the domain answers, as the console's pages show it: rows and views of the `app` crate
//! (times kept as times, for the page to write in its language), and errors as refusals that a
//! page turns into a fixed sentence.

use app::console::{
    Actor, ApiKeyId, ApiKeyRow, AuditEntry, BalanceView, ConsoleError, ConsoleResult,
    KeyedEndpoint, Money, ObjectRef, OrderRow, PayoutRow, RefundRow, Refusal, RequestView, RunRow,
    StatementRow, TimelineEntry,
};

use crate::accounts::auth::keys::ApiKey;
use crate::contract::error::Error;
use crate::history::audit::AuditRow;
use crate::history::timeline::Entry;
use crate::idempotency::IdempotencyKey;
use crate::payments::balance::{Available, Balance};
use crate::payments::orders::Order;
use crate::payments::payouts::Payout;
use crate::payments::refunds::Refund;
use crate::payments::statement::BalanceTransaction;
use crate::reconcile;
use crate::request_log::query::LoggedRequest;
use crate::service::keyed;

pub(super) fn failed(error: impl std::fmt::Display) -> ConsoleError {
    ConsoleError::Failed(error.to_string())
}

/// A state read back from its stored name; a name the console does not know is a failure.
pub(super) fn known<State: TryFrom<String, Error = String>>(name: String) -> ConsoleResult<State> {
    State::try_from(name).map_err(failed)
}

/// Who acted, stored as their kind's name and their name; a kind the console does not know, or
/// an API key's name that is no key's id, is a failure.
pub(super) fn actor(kind: String, name: String) -> ConsoleResult<Actor> {
    Actor::named(known(kind)?, name).map_err(failed)
}

/// An object stored as its type's name and its id; a type the console does not know, or an id
/// that is not of it, is a failure (never shown as it is).
pub(super) fn object(kind: String, id: String) -> ConsoleResult<ObjectRef> {
    ObjectRef::stored(kind, id).map_err(failed)
}

/// A key record's endpoint as one of the engine's (none while its one-commit request executes:
/// the record reads it empty); one the engine does not list is a failure.
pub(super) fn keyed_endpoint(stored: &str) -> ConsoleResult<Option<KeyedEndpoint>> {
    if stored.is_empty() {
        return Ok(None);
    }
    keyed::ENDPOINTS
        .iter()
        .find(|endpoint| **endpoint == stored)
        .map(|endpoint| Some(KeyedEndpoint(endpoint)))
        .ok_or_else(|| failed(format!("{stored:?} is not a keyed endpoint")))
}

/// The refusal an error makes on a console page.
pub(super) fn refusal(error: &Error) -> Refusal {
    let param = match error {
        Error::InvalidRequest { param, .. } => param.clone(),
        _ => None,
    };
    Refusal {
        code: error.code(),
        param,
    }
}

/// A form's idempotency key, or the refusal an unusable one makes (the API's
/// `idempotency_key_invalid`): read where the form is, so no text reaches the backend as a key.
pub(super) fn form_key(text: &str) -> Result<IdempotencyKey, Refusal> {
    IdempotencyKey::parse(text.as_bytes()).map_err(|invalid| refusal(&Error::from(invalid)))
}

/// A key as stored (the engine wrote only keys that it read); one that reads as no key is a
/// failure.
pub(super) fn stored_key(text: &str) -> ConsoleResult<IdempotencyKey> {
    IdempotencyKey::parse(text.as_bytes()).map_err(failed)
}

/// The refusal of a form's field, named as the API names it.
pub(super) fn invalid(param: &str) -> Refusal {
    Refusal::invalid(param)
}

/// A list's rows, a refusal for a cursor that is not the merchant's, or the failure.
pub(super) fn listed<T>(rows: Result<Vec<T>, Error>) -> ConsoleResult<Vec<T>> {
    match rows {
        Ok(rows) => Ok(rows),
        Err(error @ Error::InvalidRequest { .. }) => Err(refusal(&error).into()),
        Err(error) => Err(failed(error)),
    }
}

/// A timeline's moment for people: its time, and the wait before it (none for the first).
pub(super) fn timeline_entry(position: usize, entry: Entry) -> TimelineEntry {
    TimelineEntry {
        at: entry.at,
        after_ms: (position > 0).then_some(entry.after_ms),
        moment: entry.moment,
        reference: entry.reference,
        duplicate: None,
    }
}

pub(super) fn payout_row(payout: &Payout) -> ConsoleResult<PayoutRow> {
    Ok(PayoutRow {
        id: payout.id.clone(),
        money: Money {
            amount: payout.amount,
            currency: payout.currency.clone(),
        },
        status: payout.status,
        idempotency_key: stored_key(&payout.idempotency_key)?,
        created_at: payout.created_at,
    })
}

pub(super) fn refund_row(refund: &Refund) -> RefundRow {
    RefundRow {
        id: refund.id.clone(),
        money: Money {
            amount: refund.amount,
            currency: refund.currency.clone(),
        },
        status: refund.status,
        failure_code: refund.failure_code.clone(),
        created_at: refund.created_at,
    }
}

/// Amounts per currency as the console shows money.
pub(super) fn moneys(amounts: Vec<Available>) -> Vec<Money> {
    amounts
        .into_iter()
        .map(|each| Money {
            amount: each.amount,
            currency: each.currency,
        })
        .collect()
}

pub(super) fn balance_view(balance: Balance) -> BalanceView {
    BalanceView {
        available: moneys(balance.available),
        reserved: moneys(balance.reserved),
    }
}

pub(super) fn statement_row(item: BalanceTransaction) -> ConsoleResult<StatementRow> {
    let money = |amount| Money {
        amount,
        currency: item.currency.clone(),
    };
    Ok(StatementRow {
        money: money(item.amount),
        balance_after: money(item.balance_after),
        id: item.id.into(),
        kind: known(item.kind)?,
        source: object(item.source.kind, item.source.id)?,
        created_at: item.created_at,
    })
}

pub(super) fn order_row(order: Order) -> OrderRow {
    OrderRow {
        id: order.id,
        money: Money {
            amount: order.amount,
            currency: order.currency,
        },
        status: order.status,
        description: order.description,
        created_at: order.created_at,
    }
}

/// An audit log entry for the page: its before and after as compact JSON; an actor's kind, an
/// action or an object the console does not know (its type, or an id not of it) is a failure.
pub(super) fn audit_entry(row: AuditRow) -> ConsoleResult<AuditEntry> {
    Ok(AuditEntry {
        id: row.id.into(),
        at: row.created_at,
        actor: actor(row.actor_kind, row.actor)?,
        action: known(row.action)?,
        object: object(row.object_type, row.object_id)?,
        address: row.client_address,
        before: row.before.map(|before| before.to_string()),
        after: row.after.map(|after| after.to_string()),
    })
}

pub(super) fn request_view(logged: LoggedRequest) -> ConsoleResult<RequestView> {
    Ok(RequestView {
        id: logged.id.into(),
        at: logged.created_at,
        route: logged.route,
        path: logged.path,
        idempotency_key: logged.idempotency_key,
        verdict: logged.verdict.map(known).transpose()?,
        status: logged.status,
        error_code: logged.error_code.map(known).transpose()?,
        latency_ms: logged.latency_ms,
        api_key_id: logged.api_key_id.map(ApiKeyId::from),
        user: logged.user,
        client_address: logged.client_address,
        request_body: logged.request_body,
        response_body: logged.response_body,
        client_request_id: logged.client_request_id,
    })
}

pub(super) fn run_row(run: reconcile::StoredRun) -> ConsoleResult<RunRow> {
    Ok(RunRow {
        id: run.id.into(),
        date: run.date,
        applied: run.applied,
        status: known(run.status)?,
        created_at: run.created_at,
    })
}

pub(super) fn api_key_row(key: ApiKey) -> ApiKeyRow {
    ApiKeyRow {
        id: key.id.into(),
        name: key.name,
        prefix: key.prefix,
        access: key.access,
        created_at: key.created_at,
        last_used_at: key.last_used_at,
        expires_at: key.expires_at,
        created_by: key.created_by,
    }
}
