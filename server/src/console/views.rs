//! What the domain answers, as the console's pages show it: rows and views of the `app` crate
//! (times kept as times, for the page to write in its language), and errors as refusals that a
//! page turns into a fixed sentence.

use app::console::{
    ConsoleError, ConsoleResult, DeliveryAnswer, Money, OrderRow, PayoutRow, Refusal, RequestView,
    RunRow, TimelineEntry, TimelineMoment,
};

use crate::contract::error::Error;
use crate::history::timeline::{Entry, Moment};
use crate::payments::orders::Order;
use crate::payments::payouts::Payout;
use crate::reconcile;
use crate::request_log::query::LoggedRequest;

pub(super) fn failed(error: impl std::fmt::Display) -> ConsoleError {
    ConsoleError(error.to_string())
}

/// The refusal an error makes on a console page.
pub(super) fn refusal(error: &Error) -> Refusal {
    let param = match error {
        Error::InvalidRequest { param, .. } => param.clone(),
        _ => None,
    };
    Refusal {
        code: error.code().to_owned(),
        param,
    }
}

/// The refusal of a form's field, named as the API names it.
pub(super) fn invalid(param: &str) -> Refusal {
    Refusal {
        code: "invalid_request".to_owned(),
        param: Some(param.to_owned()),
    }
}

/// A list's rows, a refusal for a cursor that is not the merchant's, or the failure.
pub(super) fn listed<T>(rows: Result<Vec<T>, Error>) -> ConsoleResult<Result<Vec<T>, Refusal>> {
    match rows {
        Ok(rows) => Ok(Ok(rows)),
        Err(error @ Error::InvalidRequest { .. }) => Ok(Err(refusal(&error))),
        Err(error) => Err(failed(error)),
    }
}

/// A timeline's moment for people: its time, and the wait before it (none for the first).
pub(super) fn timeline_entry(position: usize, entry: Entry) -> TimelineEntry {
    TimelineEntry {
        at: entry.at,
        after_ms: (position > 0).then_some(entry.after_ms),
        moment: timeline_moment(entry.moment),
        reference: entry.reference,
    }
}

/// What happened, as the console's view type (the API writes it in English with the app too).
pub(super) fn timeline_moment(moment: Moment) -> TimelineMoment {
    match moment {
        Moment::Request {
            route,
            status,
            verdict,
            error_code,
            latency_ms,
        } => TimelineMoment::Request {
            route,
            status,
            verdict,
            error_code,
            latency_ms,
        },
        Moment::RecordStored { endpoint } => TimelineMoment::RecordStored { endpoint },
        Moment::RecordChanged { status, error } => TimelineMoment::RecordChanged { status, error },
        Moment::PayoutCreated {
            amount,
            currency,
            partner_key,
        } => TimelineMoment::PayoutCreated {
            money: Money { amount, currency },
            partner_key,
        },
        Moment::OrderCreated { amount, currency } => TimelineMoment::OrderCreated {
            money: Money { amount, currency },
        },
        Moment::PartnerCall {
            call,
            partner_key,
            answer,
            latency_ms,
        } => TimelineMoment::PartnerCall {
            call,
            partner_key,
            answer,
            latency_ms,
        },
        Moment::PartnerWebhook {
            event_type,
            transfer_id,
        } => TimelineMoment::PartnerWebhook {
            event_type,
            transfer_id,
        },
        Moment::Reconciliation {
            run_date,
            item,
            action,
            transfer_id,
        } => TimelineMoment::Reconciliation {
            run_date,
            item,
            action,
            transfer_id,
        },
        Moment::Reversal { transfer_id, state } => TimelineMoment::Reversal { transfer_id, state },
        Moment::EventSent { event_type } => TimelineMoment::EventSent { event_type },
        Moment::Delivery {
            event_type,
            url,
            status_code,
            error,
            latency_ms,
        } => TimelineMoment::Delivery {
            event_type,
            url,
            answer: match (status_code, error) {
                (Some(status), _) => DeliveryAnswer::Http(status),
                (None, Some(error)) => DeliveryAnswer::Error(error),
                (None, None) => DeliveryAnswer::None,
            },
            latency_ms,
        },
    }
}

pub(super) fn payout_row(payout: &Payout) -> PayoutRow {
    PayoutRow {
        id: payout.id.clone(),
        money: Money {
            amount: payout.amount,
            currency: payout.currency.clone(),
        },
        status: payout.status.to_string(),
        idempotency_key: payout.idempotency_key.clone(),
        created_at: payout.created_at,
    }
}

pub(super) fn order_row(order: Order) -> OrderRow {
    OrderRow {
        id: order.id,
        money: Money {
            amount: order.amount,
            currency: order.currency,
        },
        status: order.status.to_string(),
        description: order.description,
        created_at: order.created_at,
    }
}

pub(super) fn request_view(logged: LoggedRequest) -> RequestView {
    RequestView {
        id: logged.id,
        at: logged.created_at,
        route: logged.route,
        path: logged.path,
        idempotency_key: logged.idempotency_key,
        verdict: logged.verdict,
        status: logged.status,
        error_code: logged.error_code,
        latency_ms: logged.latency_ms,
        api_key_id: logged.api_key_id,
        user: logged.user,
        client_address: logged.client_address,
        request_body: logged.request_body,
        response_body: logged.response_body,
        client_request_id: logged.client_request_id,
    }
}

pub(super) fn run_row(run: reconcile::StoredRun) -> RunRow {
    RunRow {
        id: run.id,
        date: run.date,
        applied: run.applied,
        status: run.status,
        created_at: run.created_at,
    }
}
