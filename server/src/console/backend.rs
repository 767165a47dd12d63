//! The `Console` trait over the domain (with [`super::views`] for what pages show and
//! [`super::filters`] for what their addresses ask). Its pages read through the same
//! domain functions as the JSON API, and its payout form and Redeliver button run the same
//! commands through the same engine (`commands::run`) as `POST /v1/payouts` and
//! `POST /v1/events/{event_id}/redeliver`, so a console payout's key shows up in the key
//! look-up and the API. "Run reconciliation now" runs the reconciler's idempotent run on
//! request. It renders what became of a command as a page, never as HTTP.

use kaadxpay_types::ids::{EndpointId, MerchantId, OrderId, PayoutId};
use std::time::Duration;

use app::console::{
    ApiKeyChange, ApiKeyRow, AttemptRow, AuditEntry, AuditFilter, BalanceView, Console,
    ConsoleResult, CurrentUser, Decision, DeliveryRow, EndpointChange, EndpointRow, EndpointState,
    Enrolment, EventRow, HourOutcomes, KeyView, ListFilter, MagicIban, Member, Money, OrderRow,
    OrderStatus, Overview, Page, PayoutForm, PayoutRow, PayoutView, PendingInvitation, Permission,
    Refusal, RequestFilters, RequestView, Role, RunItem, RunRow, Scope, SearchHit, SearchQuery,
    Security, StatementRow, Subject, Submission, TimelineEntry,
};
use async_trait::async_trait;

use super::filters::{audit_filters, day_filter, list_filters, page, paged, request_filters};
use super::forms::{by_user, maker_of};
use super::views::{
    api_key_row, audit_entry, balance_view, failed, form_key, invalid, listed, moneys, order_row,
    payout_row, refusal, request_view, run_row, statement_row, timeline_entry,
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
use crate::payments::events::{known_event_names, KnownEventType};
use crate::payments::money::{Amount, Currency};
use crate::payments::orders::{self, Target};
use crate::payments::payouts::{self, CreatePayout};
use crate::payments::statement::{self, StatementFilters};
use crate::payments::thresholds;
use crate::reconcile::on_request::{Requester, RunNowError};
use crate::reconcile::{self, Reconciler};
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

/// What became of a command run from the console: the answer it stored (`true` when this
/// submit executed it, `false` for a replay), or the refusal of a key that was reused or a
/// request that failed validation.
enum Answer {
    Stored(StoredResponse, bool),
    Refused(Refusal),
}

impl Answer {
    fn of(stored: StoredResponse, executed_now: bool) -> Self {
        match stored_refusal(&stored) {
            Some((code, param)) => Answer::Refused(Refusal { code, param }),
            None => Answer::Stored(stored, executed_now),
        }
    }
}

impl PgConsole {
    /// Runs `command` under `key`; an earlier run of the same form that is still in flight is
    /// waited for (up to [`IN_FLIGHT_WAIT`]), so a double click shows the one result.
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
            match commands::run(&self.state, &caller, command).await {
                Ok(Outcome::Executed(stored)) => return Ok(Answer::of(stored, true)),
                Ok(Outcome::Replayed(stored)) => return Ok(Answer::of(stored, false)),
                Ok(Outcome::InProgress) if tokio::time::Instant::now() < deadline => {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                }
                Ok(Outcome::InProgress) => {
                    return Ok(Answer::Refused(refusal(
                        &Error::IdempotencyRequestInProgress,
                    )))
                }
                Ok(Outcome::KeyReused(reuse)) => {
                    return Ok(Answer::Refused(refusal(&Error::from(reuse))))
                }
                Ok(Outcome::Interrupted(error)) | Err(error) if error.is_definitive() => {
                    return Ok(Answer::Refused(refusal(&error)))
                }
                Ok(Outcome::Interrupted(error)) | Err(error) => return Err(failed(error)),
            }
        }
    }
}

#[async_trait]
impl Console for PgConsole {
    async fn requests(
        &self,
        merchant_id: &MerchantId,
        filters: &RequestFilters,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<RequestView>, Refusal>> {
        let filters = match request_filters(filters) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let page = page(starting_after, PAGE_SIZE);
        let logged = request_log::list(&self.state.pool, merchant_id, &filters, &page).await;
        listed(logged).map(|rows| {
            rows.map(|rows| paged(rows, &page, |logged| logged.id.clone(), request_view))
        })
    }

    async fn team(
        &self,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<(Vec<Member>, Vec<PendingInvitation>)> {
        let pool = &self.state.pool;
        let members = team::members(pool, merchant_id).await.map_err(failed)?;
        let pending = team::pending(pool, merchant_id).await.map_err(failed)?;
        Ok((
            members
                .into_iter()
                .filter_map(|member| {
                    Some(Member {
                        role: Role::parse(&member.role)?,
                        id: member.id,
                        email: member.email,
                        joined_at: member.created_at,
                    })
                })
                .collect(),
            pending
                .into_iter()
                .map(|(id, email, role, expires_at)| PendingInvitation {
                    role,
                    id,
                    email,
                    expires_at,
                })
                .collect(),
        ))
    }

    async fn invitation(&self, token: &str) -> ConsoleResult<Option<(String, Role)>> {
        team::invitation(&self.state.pool, token)
            .await
            .map_err(failed)
    }

    async fn request(
        &self,
        merchant_id: &MerchantId,
        id: &str,
    ) -> ConsoleResult<Option<RequestView>> {
        Ok(request_log::find(&self.state.pool, merchant_id, id)
            .await
            .map_err(failed)?
            .map(request_view))
    }

    async fn overview(&self, merchant_id: &MerchantId) -> ConsoleResult<Overview> {
        let pool = &self.state.pool;
        let balances = balance::of_merchant(pool, merchant_id)
            .await
            .map_err(failed)?;
        let (all, recent) = (ListFilters::default(), page(None, RECENT));
        let recent_payouts = payouts::list(pool, merchant_id, &all, &recent)
            .await
            .map_err(failed)?;
        let recent_orders = orders::list(pool, merchant_id, &all, &recent)
            .await
            .map_err(failed)?;
        let outcomes = last_hours(pool, merchant_id, 24)
            .await
            .map_err(failed)?
            .into_iter()
            .map(|hour| HourOutcomes {
                hour: hour.hour.format("%H:00").to_string(),
                new: hour.new,
                replayed: hour.replayed,
                in_progress: hour.in_progress,
                mismatch: hour.mismatch,
            })
            .collect();
        Ok(Overview {
            balances: moneys(balances.available),
            payouts: recent_payouts
                .iter()
                .take(RECENT as usize)
                .map(payout_row)
                .collect(),
            orders: recent_orders
                .into_iter()
                .take(RECENT as usize)
                .map(order_row)
                .collect(),
            outcomes,
        })
    }

    async fn available(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>> {
        let balances = balance::of_merchant(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(moneys(balances.available))
    }

    async fn payouts(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<PayoutRow>, Refusal>> {
        let filters = match list_filters(filter) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let page = page(starting_after, PAGE_SIZE);
        listed(payouts::list(&self.state.pool, merchant_id, &filters, &page).await).map(|rows| {
            rows.map(|rows| {
                paged(
                    rows,
                    &page,
                    |payout| payout.id.to_string(),
                    |payout| payout_row(&payout),
                )
            })
        })
    }

    async fn payout(
        &self,
        merchant_id: &MerchantId,
        id: &str,
    ) -> ConsoleResult<Option<PayoutView>> {
        let record = payouts::find(&self.state.pool, merchant_id, &PayoutId::from(id))
            .await
            .map_err(failed)?;
        Ok(record.map(|record| {
            let payout = &record.payout;
            PayoutView {
                row: payout_row(payout),
                account_holder: payout.destination.account_holder.clone(),
                iban: payout.destination.iban.clone(),
                partner_transfer_id: payout.partner_transfer_id.clone(),
                failure_code: payout.failure_code.clone(),
                updated_at: payout.updated_at,
                created_by: record
                    .created_by_kind
                    .clone()
                    .zip(record.created_by.clone()),
                accountable: record.accountable.clone(),
                decided: record.decided_by.clone().zip(record.decided_at),
            }
        }))
    }

    async fn submit_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        form: PayoutForm,
    ) -> ConsoleResult<Submission> {
        let key = match form_key(&form.idempotency_key) {
            Ok(key) => key,
            Err(refused) => return Ok(Submission::Refused(refused)),
        };
        let command = match payout_command(form) {
            Ok(command) => command,
            Err(refused) => return Ok(Submission::Refused(refused)),
        };
        Ok(match self.run(user, merchant_id, &key, &command).await? {
            Answer::Stored(stored, _) => Submission::Payout(
                stored
                    .resource
                    .map(|resource| resource.id)
                    .unwrap_or_default(),
            ),
            Answer::Refused(refusal) => Submission::Refused(refusal),
        })
    }

    async fn awaiting_decision(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<Vec<PayoutRow>> {
        let awaiting = payouts::awaiting_approval(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(awaiting
            .iter()
            .filter(|record| {
                may_make(user, record.accountable.as_deref(), Decision::Approve).is_ok()
            })
            .map(|record| payout_row(&record.payout))
            .collect())
    }

    async fn another_approver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<bool> {
        let members = team::members(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(members.iter().any(|member| {
            member.id != user.id
                && Role::parse(&member.role).is_some_and(|role| role.may(Permission::CreatePayouts))
        }))
    }

    fn decisions(&self, user: &CurrentUser, payout: &PayoutView) -> Vec<Decision> {
        let accountable = payout.accountable.as_deref();
        [Decision::Approve, Decision::Reject, Decision::Cancel]
            .into_iter()
            .filter(|decision| may_make(user, accountable, *decision).is_ok())
            .collect()
    }

    async fn decide_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &str,
        decision: Decision,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<(), Refusal>> {
        let key = match form_key(idempotency_key) {
            Ok(key) => key,
            Err(refused) => return Ok(Err(refused)),
        };
        let payout_id = PayoutId::from(id);
        let Some(payout) = payouts::find(&self.state.pool, merchant_id, &payout_id)
            .await
            .map_err(failed)?
        else {
            return Ok(Err(refusal(&Error::ResourceMissing("payout"))));
        };
        if let Err(refused) = may_make(user, payout.accountable.as_deref(), decision) {
            return Ok(Err(refusal(&refused.into())));
        }
        let answer = match decision {
            Decision::Approve => {
                let command = ApprovePayout { payout_id };
                self.run(user, merchant_id, &key, &command).await?
            }
            Decision::Reject => {
                let command = RejectPayout { payout_id };
                self.run(user, merchant_id, &key, &command).await?
            }
            Decision::Cancel => {
                let command = CancelPayout { payout_id };
                self.run(user, merchant_id, &key, &command).await?
            }
        };
        Ok(match answer {
            Answer::Stored(..) => Ok(()),
            Answer::Refused(refusal) => Err(refusal),
        })
    }

    async fn thresholds(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>> {
        let thresholds = thresholds::thresholds(&self.state.pool, merchant_id)
            .await
            .map_err(failed)?;
        Ok(thresholds
            .into_iter()
            .map(|threshold| Money {
                amount: threshold.amount,
                currency: threshold.currency,
            })
            .collect())
    }

    async fn change_threshold(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        currency: &str,
        amount: &str,
    ) -> ConsoleResult<Result<(), Refusal>> {
        let Ok(currency) = Currency::try_from(currency.to_owned()) else {
            return Ok(Err(invalid("currency")));
        };
        let amount = match amount.trim() {
            "" => None,
            typed => match typed_amount(currency, typed) {
                Ok(amount) => Some(amount),
                Err(refused) => return Ok(Err(refused)),
            },
        };
        let by = by_user(user);
        let pool = &self.state.pool;
        match thresholds::change_threshold(pool, merchant_id, user.role, &by, currency, amount)
            .await
        {
            Ok(()) => Ok(Ok(())),
            Err(error @ Error::Forbidden(_)) => Ok(Err(refusal(&error))),
            Err(error) => Err(failed(error)),
        }
    }

    async fn orders(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<OrderRow>, Refusal>> {
        let filters = match list_filters(filter) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let page = page(starting_after, PAGE_SIZE);
        listed(orders::list(&self.state.pool, merchant_id, &filters, &page).await).map(|rows| {
            rows.map(|rows| paged(rows, &page, |order| order.id.to_string(), order_row))
        })
    }

    async fn balance(&self, merchant_id: &MerchantId) -> ConsoleResult<BalanceView> {
        balance::of_merchant(&self.state.pool, merchant_id)
            .await
            .map(balance_view)
            .map_err(failed)
    }

    async fn statement(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<StatementRow>, Refusal>> {
        let filters = match list_filters(filter) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let page = page(starting_after, PAGE_SIZE);
        let rows = match StatementFilters::of_list(&filters) {
            Ok(filters) => statement::list(&self.state.pool, merchant_id, &filters, &page).await,
            Err(refused) => Err(refused),
        };
        listed(rows)
            .map(|rows| rows.map(|rows| paged(rows, &page, |item| item.id.clone(), statement_row)))
    }

    async fn order(&self, merchant_id: &MerchantId, id: &str) -> ConsoleResult<Option<OrderRow>> {
        Ok(
            orders::find(&self.state.pool, merchant_id, &OrderId::from(id))
                .await
                .map_err(failed)?
                .map(order_row),
        )
    }

    async fn set_order_status(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &str,
        to: OrderStatus,
    ) -> ConsoleResult<Result<(), Refusal>> {
        let Ok(target) = Target::try_from(to) else {
            let not_a_move =
                Error::InvalidStateTransition(format!("An order is never moved to {to}."));
            return Ok(Err(Refusal::new(not_a_move.code())));
        };
        let (pool, id) = (&self.state.pool, OrderId::from(id));
        match orders::transition(pool, merchant_id, &id, target, &by_user(user)).await {
            Ok(_) => Ok(Ok(())),
            Err(Error::Internal(cause)) => Err(failed(format!("{cause:#}"))),
            Err(refusal) => Ok(Err(Refusal::new(refusal.code()))),
        }
    }

    async fn key(&self, merchant_id: &MerchantId, key: &str) -> ConsoleResult<Option<KeyView>> {
        let Some(found) = record::find(&self.state.idempotency, merchant_id, key)
            .await
            .map_err(failed)?
        else {
            return Ok(None);
        };
        Ok(Some(KeyView {
            merchant_id: merchant_id.to_string(),
            status: found.status.clone(),
            endpoint: found.endpoint.clone(),
            request_hash: found.request_hash.clone(),
            response_status: found.response_status,
            resource: found
                .resource
                .as_ref()
                .map(|link| (link.kind.clone(), link.id.clone())),
            recovery_point: found.recovery_point.clone(),
            error: found.error.clone(),
            attempts: found.attempts,
            created_at: found.created_at,
            updated_at: found.updated_at,
            expires_at: found.expires_at,
            // Shown to every user of the merchant: a secret it carried is not.
            response_body: recorded_answer(&self.state, merchant_id, &found)
                .await
                .map_err(failed)?
                .map(|bytes| signature::redact(&String::from_utf8_lossy(&bytes))),
            key: found.key,
        }))
    }

    async fn search(&self, query: &SearchQuery) -> ConsoleResult<Vec<SearchHit>> {
        let hits = search::across_merchants(
            &self.state.pool,
            self.state.idempotency.ttl(),
            &query.text,
            &query.status,
            &query.from,
            &query.to,
        )
        .await
        .map_err(failed)?;
        Ok(hits
            .into_iter()
            .map(|hit| SearchHit {
                subject: match hit.kind {
                    Kind::Payout => Subject::Payout(hit.name),
                    Kind::Order => Subject::Order(hit.name),
                    Kind::Key => Subject::Key(hit.name),
                },
                merchant_id: hit.merchant_id,
                detail: hit.detail,
                status: hit.status,
                created_at: hit.created_at,
            })
            .collect())
    }

    async fn timeline(
        &self,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<Option<Vec<TimelineEntry>>> {
        let pool = &self.state.pool;
        let entries = match subject {
            Subject::Key(key) => {
                match record::find(&self.state.idempotency, merchant_id, key)
                    .await
                    .map_err(failed)?
                {
                    Some(found) => Some(timeline::of_key(pool, merchant_id, &found).await),
                    None => None,
                }
            }
            Subject::Payout(id) => {
                timeline::of_resource(pool, merchant_id, TimelineResource::Payout(id))
                    .await
                    .transpose()
            }
            Subject::Order(id) => {
                timeline::of_resource(pool, merchant_id, TimelineResource::Order(id))
                    .await
                    .transpose()
            }
        };
        entries
            .map(|entries| {
                entries.map_err(failed).map(|entries| {
                    entries
                        .into_iter()
                        .enumerate()
                        .map(|(at, entry)| timeline_entry(at, entry))
                        .collect()
                })
            })
            .transpose()
    }

    async fn webhooks(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<(Vec<EndpointRow>, Page<EventRow>), Refusal>> {
        let filters = match list_filters(filter) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let pool = &self.state.pool;
        let failed_api = |error: Error| failed(error.to_string());
        let endpoints = endpoints::list(pool, merchant_id, &page(None, PAGE_SIZE))
            .await
            .map_err(failed_api)?;
        let page = page(starting_after, PAGE_SIZE);
        let recent = match listed(events::list(pool, merchant_id, &filters, &page).await)? {
            Ok(recent) => paged(recent, &page, |event| event.id.to_string(), |event| event),
            Err(refused) => return Ok(Err(refused)),
        };
        let mut conn = pool.acquire().await.map_err(failed)?;
        let mut shown = Vec::new();
        for event in recent.rows {
            let Some(detail) = events::find(&mut conn, merchant_id, event.id)
                .await
                .map_err(failed)?
            else {
                continue;
            };
            let mut deliveries = Vec::new();
            for delivery in detail.deliveries.unwrap_or_default() {
                let curl =
                    attempt::reproduce(&mut conn, &self.state.sealer, merchant_id, delivery.id)
                        .await
                        .map_err(failed)?;
                deliveries.push(DeliveryRow {
                    url: delivery.url,
                    status: delivery.status,
                    attempts: delivery
                        .attempts
                        .into_iter()
                        .map(|attempt| AttemptRow {
                            delivery_id: attempt.delivery_id.to_string(),
                            status_code: attempt.status_code,
                            latency_ms: attempt.latency_ms,
                            error: attempt.error,
                            at: attempt.at,
                        })
                        .collect(),
                    curl,
                });
            }
            shown.push(EventRow {
                id: detail.id.to_string(),
                event_type: detail.event_type,
                created_at: detail.created_at,
                deliveries,
            });
        }
        let endpoints = endpoints
            .into_iter()
            .take(PAGE_SIZE as usize)
            .map(|endpoint| EndpointRow {
                id: endpoint.id.into(),
                url: endpoint.url,
                events: endpoint.events,
                status: endpoint.status,
            });
        let events = Page {
            rows: shown,
            next: recent.next,
        };
        Ok(Ok((endpoints.collect(), events)))
    }

    async fn change_endpoint(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: EndpointChange,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<Option<String>, Refusal>> {
        let key = match form_key(idempotency_key) {
            Ok(key) => key,
            Err(refused) => return Ok(Err(refused)),
        };
        let answer = match change {
            EndpointChange::Add { url, events } => {
                let mut body = serde_json::json!({ "url": url });
                if !events.is_empty() {
                    body["events"] = serde_json::json!(events);
                }
                let command: CreateEndpoint = match input::command(&body) {
                    Ok(command) => command,
                    Err(error) => return Ok(Err(refusal(&error))),
                };
                self.run(user, merchant_id, &key, &command).await?
            }
            EndpointChange::RotateSecret { id, overlap } => {
                let Ok(overlap) = Overlap::try_from(overlap) else {
                    return Ok(Err(invalid("overlap")));
                };
                let command = RotateSecret {
                    endpoint_id: id.into(),
                    overlap,
                };
                self.run(user, merchant_id, &key, &command).await?
            }
            EndpointChange::RecoverFailed { id, since } => {
                let Ok(Some(day)) = day_filter("since", &since) else {
                    return Ok(Err(invalid("since")));
                };
                let command = Recover {
                    endpoint_id: id.into(),
                    since: day.and_time(chrono::NaiveTime::MIN).and_utc(),
                };
                self.run(user, merchant_id, &key, &command).await?
            }
            EndpointChange::SendTestEvent { id, event_type } => {
                let Ok(event_type) = KnownEventType::try_from(event_type) else {
                    return Ok(Err(invalid("event_type")));
                };
                let command = SendTestEvent {
                    endpoint_id: id.into(),
                    event_type,
                };
                self.run(user, merchant_id, &key, &command).await?
            }
        };
        Ok(match answer {
            Answer::Stored(stored, _) => {
                Ok(serde_json::from_slice::<serde_json::Value>(&stored.body)
                    .ok()
                    .and_then(|body| body["secret"].as_str().map(str::to_owned)))
            }
            Answer::Refused(refusal) => Err(refusal),
        })
    }

    async fn set_endpoint_state(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &str,
        state: EndpointState,
    ) -> ConsoleResult<Result<(), Refusal>> {
        let missing = || refusal(&Error::ResourceMissing("webhook endpoint"));
        let by = by_user(user);
        let disabled = match state {
            EndpointState::Deleted => {
                let deleted =
                    endpoints::delete(&self.state.pool, merchant_id, &EndpointId::from(id), &by)
                        .await
                        .map_err(failed)?;
                return Ok(if deleted { Ok(()) } else { Err(missing()) });
            }
            EndpointState::Disabled => true,
            EndpointState::Enabled => false,
        };
        let change = UpdateEndpoint {
            url: None,
            events: None,
            disabled: Some(disabled),
        };
        match management::update(&self.state, merchant_id, id, &change, &by).await {
            Ok(_) => Ok(Ok(())),
            Err(Error::ResourceMissing(_)) => Ok(Err(missing())),
            Err(error) => Err(failed(error)),
        }
    }

    fn event_types(&self) -> Vec<String> {
        known_event_names().into_iter().map(str::to_owned).collect()
    }

    async fn api_keys(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<ApiKeyRow>> {
        let keys = api_keys::list(&self.state.pool, merchant_id, &page(None, MAX_LIMIT))
            .await
            .map_err(failed)?;
        Ok(keys.into_iter().map(api_key_row).collect())
    }

    async fn change_api_key(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: ApiKeyChange,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<Option<String>, Refusal>> {
        let key = match form_key(idempotency_key) {
            Ok(key) => key,
            Err(refused) => return Ok(Err(refused)),
        };
        let secret = Secret::generate(self.state.mode);
        let answer = match change {
            ApiKeyChange::Create {
                name,
                access,
                for_merchant,
            } => {
                let body = serde_json::json!({ "name": name, "access": access });
                let key_fields = match input::command(&body) {
                    Ok(fields) => fields,
                    Err(error) => return Ok(Err(refusal(&error))),
                };
                let command = CreateKey {
                    key: key_fields,
                    for_merchant,
                    secret: secret.clone(),
                };
                self.run(user, merchant_id, &key, &command).await?
            }
            ApiKeyChange::Roll { id, overlap } => {
                let parameters = match input::command(&serde_json::json!({ "overlap": overlap })) {
                    Ok(parameters) => parameters,
                    Err(error) => return Ok(Err(refusal(&error))),
                };
                let command = RollKey {
                    key_id: id,
                    parameters,
                    secret: secret.clone(),
                };
                self.run(user, merchant_id, &key, &command).await?
            }
            ApiKeyChange::Revoke { id } => {
                let revoked = api_keys::revoke(&self.state.pool, merchant_id, &id, &by_user(user))
                    .await
                    .map_err(failed)?;
                return Ok(revoked
                    .map(|_| None)
                    .ok_or_else(|| refusal(&Error::ResourceMissing("API key"))));
            }
        };
        Ok(match answer {
            Answer::Stored(_, true) => Ok(Some(secret.as_str().to_owned())),
            Answer::Stored(_, false) => Ok(None),
            Answer::Refused(refusal) => Err(refusal),
        })
    }

    async fn redeliver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        event_id: &str,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<(), Refusal>> {
        let key = match form_key(idempotency_key) {
            Ok(key) => key,
            Err(refused) => return Ok(Err(refused)),
        };
        let Ok(event_id) = events::parse_id(event_id) else {
            return Ok(Err(refusal(&Error::ResourceMissing("event"))));
        };
        Ok(
            match self
                .run(user, merchant_id, &key, &RedeliverEvent { event_id })
                .await?
            {
                Answer::Stored(..) => Ok(()),
                Answer::Refused(refusal) => Err(refusal),
            },
        )
    }

    async fn test_mode(&self) -> Option<Vec<MagicIban>> {
        self.state.test_mode.is_on().await.then(|| {
            MAGIC_IBANS
                .iter()
                .map(|magic| MagicIban {
                    iban: magic.iban.to_owned(),
                    scenario: magic.scenario.name().to_owned(),
                })
                .collect()
        })
    }

    async fn run_reconciliation(
        &self,
        user: &CurrentUser,
        date: &str,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<String, Refusal>> {
        let Ok(date) = date.parse() else {
            return Ok(Err(invalid("date")));
        };
        let key = match form_key(idempotency_key) {
            Ok(key) => key,
            Err(refused) => return Ok(Err(refused)),
        };
        let (by, scope) = (by_user(user), user.scope());
        let requester = match &scope {
            Scope::Merchant(merchant_id) => Requester::Merchant(merchant_id, &by),
            Scope::AllMerchants => Requester::Support,
        };
        let reconciler = Reconciler {
            pool: self.state.pool.clone(),
            partner: self.state.partner.clone(),
        };
        match reconciler
            .run_now(requester, &self.state.test_mode, date, &key)
            .await
        {
            Ok(run) => Ok(Ok(run.id)),
            Err(RunNowError::NotAllowed) => Ok(Err(Refusal::new("not_allowed"))),
            Err(RunNowError::KeyReused(_)) => {
                Ok(Err(Refusal::new(Error::IdempotencyKeyReusedBody.code())))
            }
            Err(RunNowError::Failed(error)) => Err(failed(error)),
        }
    }

    async fn runs(
        &self,
        scope: &Scope,
        filter: &ListFilter,
    ) -> ConsoleResult<Result<Vec<RunRow>, Refusal>> {
        let filters = match list_filters(filter) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let runs = reconcile::runs(&self.state.pool, scope.merchant(), &filters, None, 50)
            .await
            .map_err(failed)?;
        Ok(Ok(runs.into_iter().map(run_row).collect()))
    }

    async fn support_viewed(
        &self,
        viewer: &CurrentUser,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<()> {
        if !viewer.is_support() {
            return Ok(());
        }
        let (kind, id) = match subject {
            Subject::Key(key) => ("idempotency_key", key),
            Subject::Payout(id) => ("payout", id),
            Subject::Order(id) => ("order", id),
        };
        let by = by_user(viewer);
        let entry = Entry::new(merchant_id, &by, Action::SupportViewed, kind, id);
        let mut conn = self.state.pool.acquire().await.map_err(failed)?;
        audit::record(&mut conn, &entry).await.map_err(failed)
    }

    async fn security(&self, user: &CurrentUser) -> ConsoleResult<Security> {
        let state = &self.state;
        let status = two_factor::status(&state.pool, &user.id)
            .await
            .map_err(failed)?;
        let enrolment = match status.confirmed_at {
            Some(_) => None,
            None => two_factor::enrolment(&state.pool, &state.sealer, &user.id, &user.email)
                .await
                .map_err(failed)?
                .map(|enrolment| Enrolment {
                    secret: enrolment.secret,
                    qr_svg: enrolment.qr_svg,
                }),
        };
        let required = match &user.merchant_id {
            Some(merchant_id) => two_factor::required(&state.pool, merchant_id)
                .await
                .map_err(failed)?,
            None => false,
        };
        Ok(Security {
            enrolled_at: status.confirmed_at,
            recovery_codes_left: status.recovery_codes_left,
            enrolment,
            required,
        })
    }

    fn audit_actions(&self) -> Vec<String> {
        Action::ALL
            .iter()
            .map(|action| action.as_str().to_owned())
            .collect()
    }

    async fn audit(
        &self,
        merchant_id: &MerchantId,
        filter: &AuditFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<AuditEntry>, Refusal>> {
        let filters = match audit_filters(filter) {
            Ok(filters) => filters,
            Err(refused) => return Ok(Err(refused)),
        };
        let page = page(starting_after, PAGE_SIZE);
        let entries = audit::list(&self.state.pool, merchant_id, &filters, &page).await;
        listed(entries)
            .map(|rows| rows.map(|rows| paged(rows, &page, |row| row.id.clone(), audit_entry)))
    }

    async fn run(&self, scope: &Scope, id: &str) -> ConsoleResult<Option<(RunRow, Vec<RunItem>)>> {
        let run = reconcile::run_with_items(&self.state.pool, id, scope.merchant())
            .await
            .map_err(failed)?;
        Ok(run.map(|mut run| {
            let items = run
                .items
                .take()
                .unwrap_or_default()
                .into_iter()
                .map(|item| RunItem {
                    kind: item.kind,
                    merchant_id: item.merchant_id,
                    payout_id: item.payout_id,
                    transfer_id: item.transfer_id,
                    money: item
                        .amount
                        .zip(item.currency)
                        .map(|(amount, currency)| Money { amount, currency }),
                    action: item.action,
                    detail: item.detail,
                });
            (run_row(run), items.collect())
        }))
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
    let resource = Resource {
        kind: link.kind.clone(),
        id: link.id.clone(),
    };
    match keyed::render(state, &record.endpoint, merchant_id, resource).await {
        Some(rendered) => Ok(Some(rendered?.body)),
        None => Ok(None),
    }
}
