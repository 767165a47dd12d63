//! `/orders` and `/orders/{id}`, with Capture and Cancel buttons (`PUT` semantics: asking for
//! the state the order is in changes nothing), and on a captured order its refunds and the
//! "Refund" form (one rendered form, one refund; a repeat of the same refund is asked about).

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, cursor, failure_view, form_key, form_refusal, list_filter, may,
    merchant_id_or_notice, not_found_view, path_id, refusal_notice, refused_filter,
    BankAccountFields, Empty, ExportLink, Field, ListFilterForm, Pager, StatusBadge,
};
use crate::console::{
    ConsoleError, OrderId, OrderRow, OrderStatus, Page, Permission, RefundRow, Subject,
};
use crate::i18n::{money, when};
use crate::pages::timeline::Timeline;

#[component]
pub fn OrdersTable(rows: Vec<OrderRow>) -> impl IntoView {
    if rows.is_empty() {
        return view! { <Empty message=tr!("orders-empty")/> }.into_any();
    }
    view! {
        <table>
            <thead><tr><th>{tr!("order-order")}</th><th>{tr!("field-amount")}</th><th>{tr!("field-status")}</th><th>{tr!("field-description")}</th><th>{tr!("field-created")}</th></tr></thead>
            <tbody>
                {rows.into_iter().map(|row| {
                    let href = format!("/orders/{}", row.id);
                    view! {
                        <tr>
                            <td><a href=href>{row.id.to_string()}</a></td>
                            <td>{money(&row.money)}</td>
                            <td><StatusBadge status=row.status.as_str()/></td>
                            <td translate="no">{row.description.unwrap_or_default()}</td>
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
pub fn Orders() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let console = console();
    let cursor = cursor();
    view! {
        <div class="heading-row"><h1>{tr!("nav-orders")}</h1><ExportLink base="/exports/orders.csv".to_owned()/></div>
        <ListFilterForm action="/orders" statuses=&OrderStatus::NAMES/>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                let listed = match (list_filter(), cursor) {
                    (Ok(filter), Ok(cursor)) => console.orders(&merchant_id, &filter, cursor).await,
                    // A status that is no order's finds none.
                    (Err(_), _) => Ok(Page::empty()),
                    (_, Err(refusal)) => Err(refusal.into()),
                };
                match listed {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok(page) => view! { <OrdersTable rows=page.rows/><Pager base="/orders" next=page.next.map(|id| id.to_string())/> }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}

#[component]
pub fn OrderDetail() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let id: OrderId = path_id();
    let error = refusal_notice().or_else(|| form_refusal(&["amount", "account_holder", "iban"]));
    let csrf = csrf_token();
    let console = console();
    view! {
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.order(&merchant_id, &id).await {
                    Err(error) => failure_view(error),
                    Ok(None) => not_found_view(),
                    Ok(Some(order)) => {
                        let refunds = match console.refunds_of_order(&merchant_id, &order.id).await {
                            Ok(refunds) => refunds,
                            Err(error) => return failure_view(error),
                        };
                        let refundable = order.status == OrderStatus::Captured && may(Permission::ManageOrders);
                        let pending = order.status == OrderStatus::Pending;
                        let action = |verb: &str| format!("/orders/{}/{verb}", order.id);
                        view! {
                            <h1>{tr!("order-order")}" "<code>{order.id.to_string()}</code></h1>
                            {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
                            <dl class="card facts">
                                <dt>{tr!("field-status")}</dt><dd><StatusBadge status=order.status.as_str()/></dd>
                                <dt>{tr!("field-amount")}</dt><dd>{money(&order.money)}</dd>
                                <dt>{tr!("field-description")}</dt><dd translate="no">{order.description.clone().unwrap_or_default()}</dd>
                                <dt>{tr!("field-created")}</dt><dd>{when(&order.created_at)}</dd>
                            </dl>
                            {(pending && may(Permission::ManageOrders)).then(|| view! {
                                <div class="actions">
                                    <form method="post" action=action("capture")>
                                        <input type="hidden" name="csrf" value=csrf.clone()/>
                                        <button type="submit">{tr!("order-capture")}</button>
                                    </form>
                                    <form method="post" action=action("cancel")>
                                        <input type="hidden" name="csrf" value=csrf.clone()/>
                                        <button type="submit" class="danger">{tr!("order-cancel")}</button>
                                    </form>
                                </div>
                            })}
                            {(!refunds.is_empty()).then(|| view! { <RefundsTable rows=refunds/> })}
                            {refundable.then(|| refund_form(&order.id, &csrf))}
                            <Timeline merchant_id=merchant_id.clone() subject=Subject::Order(order.id.clone())/>
                            <p><a href="/orders">{tr!("order-all")}</a></p>
                        }.into_any()
                    }
                }
            })}
        </Suspense>
    }
    .into_any()
}

/// An order's refunds, newest first.
#[component]
fn RefundsTable(rows: Vec<RefundRow>) -> impl IntoView {
    view! {
        <section class="card" aria-labelledby="refunds-title">
            <h2 id="refunds-title">{tr!("refund-refunds")}</h2>
            <table>
                <thead><tr><th>{tr!("refund-refund")}</th><th>{tr!("field-amount")}</th><th>{tr!("field-status")}</th><th>{tr!("field-created")}</th></tr></thead>
                <tbody>
                    {rows.into_iter().map(|row| view! {
                        <tr>
                            <td><code>{row.id.to_string()}</code></td>
                            <td>{money(&row.money)}</td>
                            <td><StatusBadge status=row.status.as_str()/>{row.failure_code.map(|code| view! { " "<code>{code}</code> })}</td>
                            <td>{when(&row.created_at)}</td>
                        </tr>
                    }).collect_view()}
                </tbody>
            </table>
        </section>
    }
}

/// The "Refund" form of a captured order, filled with what was typed when it comes back: an
/// empty amount refunds what is left.
fn refund_form(order: &OrderId, csrf: &str) -> impl IntoView {
    let action = format!("/orders/{order}/refunds");
    let amount = Field::kept("amount");
    view! {
        <form method="post" action=action.clone() class="form card" id="refund">
            <h2>{tr!("refund-new")}</h2>
            <input type="hidden" name="csrf" value=csrf.to_owned()/>
            <input type="hidden" name="idempotency_key" value=form_key(&action)/>
            <label for="amount">{tr!("field-amount")}</label>
            <input id="amount" name="amount" inputmode="decimal" placeholder=tr!("refund-amount-hint") value=amount.value.clone() aria-invalid=amount.invalid() aria-describedby=amount.described_by()/>
            {amount.reason()}
            <BankAccountFields/>
            <button type="submit">{tr!("order-refund")}</button>
        </form>
    }
}
