//! `/balance`: the merchant's balance (available and reserved, per currency) and its statement,
//! every change of `available` with the balance after it (top-ups among them), filtered by type
//! and days, with CSV, and the way to "Add funds".

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, cursor, failure_view, list_filter, merchant_id_or_notice, refused_filter, Empty,
    ExportLink, ListFilterForm, Pager,
};
use crate::console::{
    BalanceTransactionType, BalanceView, ConsoleError, ErrorCode, ObjectRef, Refusal, StatementRow,
    TransferOf,
};
use crate::i18n::{money, when};
use crate::vocabulary::{code_word, object_word};

#[component]
fn BalanceFacts(balance: BalanceView) -> impl IntoView {
    let amounts = |list: Vec<kaadxpay_types::Money>| {
        if list.is_empty() {
            return view! { <span>"0"</span> }.into_any();
        }
        view! {
            <ul class="balances">
                {list.into_iter().map(|each| view! { <li class="balance">{money(&each)}</li> }).collect_view()}
            </ul>
        }
        .into_any()
    };
    view! {
        <dl class="card facts">
            <dt>{tr!("balance-available")}</dt><dd>{amounts(balance.available)}</dd>
            <dt>{tr!("balance-reserved")}</dt><dd>{amounts(balance.reserved)}</dd>
        </dl>
    }
}

/// Where a statement item's source is shown, when the console has a page for it.
fn source_link(source: &ObjectRef) -> Option<String> {
    match source {
        ObjectRef::Order(id) => Some(format!("/orders/{id}")),
        ObjectRef::Payout(id) | ObjectRef::Reversal(TransferOf::Payout(id)) => {
            Some(format!("/payouts/{id}"))
        }
        _ => None,
    }
}

#[component]
fn StatementTable(rows: Vec<StatementRow>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <Empty message=tr!("balance-statement-empty")/> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>{tr!("balance-type")}</th><th>{tr!("field-amount")}</th><th>{tr!("balance-after")}</th><th>{tr!("balance-source")}</th><th>{tr!("field-created")}</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let kind = row.source.kind();
                    let id = row.source.to_string();
                    let source = match source_link(&row.source) {
                        Some(href) => view! { <a href=href>{id}</a> }.into_any(),
                        None => view! { <code>{id}</code> }.into_any(),
                    };
                    view! {
                        <tr>
                            <td>{code_word(row.kind.as_str())}</td>
                            <td>{money(&row.money)}</td>
                            <td>{money(&row.balance_after)}</td>
                            <td>{object_word(kind)}" "{source}</td>
                            <td>{when(&row.created_at)}</td>
                        </tr>
                    }
                }).collect_view()}
            </tbody>
        </table>
    }
    .into_any()
}

#[component]
pub fn BalancePage() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let console = console();
    let cursor = cursor();
    view! {
        <div class="heading-row"><h1>{tr!("nav-balance")}</h1><a class="button secondary" href="/balance/add-funds">{tr!("add-funds")}</a><ExportLink base="/exports/balance.csv".to_owned()/></div>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let balance = match console.balance(&merchant_id).await {
                    Err(error) => return failure_view(error),
                    Ok(balance) => balance,
                };
                let listed = match (list_filter(), cursor) {
                    (Ok(filter), Ok(cursor)) => console.statement(&merchant_id, &filter, cursor).await,
                    // The statement's status is an item's type: one that is none refuses the
                    // filters (as its export does), in the general sentence.
                    (Err(_), _) => Err(Refusal::new(ErrorCode::InvalidRequest).into()),
                    (_, Err(refusal)) => Err(refusal.into()),
                };
                let statement = match listed {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => return failure_view(error),
                    Ok(page) => view! { <StatementTable rows=page.rows/><Pager base="/balance" next=page.next.map(|id| id.to_string())/> }.into_any(),
                };
                view! {
                    <BalanceFacts balance=balance/>
                    <h2>{tr!("balance-statement")}</h2>
                    <ListFilterForm action="/balance" statuses=&BalanceTransactionType::NAMES/>
                    {statement}
                }.into_any()
            })}
        </Suspense>
    }
    .into_any()
}
