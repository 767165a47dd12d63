//! `/orders` and `/orders/{id}`, with Capture and Cancel buttons (`PUT` semantics: asking for
//! the state the order is in changes nothing).

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, cursor, failure_view, list_filter, may, merchant_id_or_notice,
    not_found_view, path_id, refusal_notice, refused_filter, Empty, ExportLink, ListFilterForm,
    Pager, StatusBadge,
};
use crate::console::{ConsoleError, OrderId, OrderRow, OrderStatus, Permission};
use crate::i18n::{money, when};

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
                match console.orders(&merchant_id, &list_filter(), cursor).await {
                    Err(ConsoleError::Refused(refusal)) => refused_filter(&refusal),
                    Err(error) => failure_view(error),
                    Ok(page) => view! { <OrdersTable rows=page.rows/><Pager base="/orders" next=page.next/> }.into_any(),
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
    let error = refusal_notice();
    let csrf = csrf_token();
    let console = console();
    view! {
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.order(&merchant_id, &id).await {
                    Err(error) => failure_view(error),
                    Ok(None) => not_found_view(),
                    Ok(Some(order)) => {
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
                            <p><a href="/orders">{tr!("order-all")}</a></p>
                        }.into_any()
                    }
                }
            })}
        </Suspense>
    }
    .into_any()
}
