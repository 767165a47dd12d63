//! `/`: the merchant's balance, recent payouts and orders, and the idempotency outcomes of
//! the last 24 hours as a chart drawn on the server.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{console, failure_view, merchant_id_or_notice, Empty};
use crate::i18n;
use crate::pages::chart::OutcomesChart;
use crate::pages::orders::OrdersTable;
use crate::pages::payouts::PayoutsTable;

#[component]
pub fn Home() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    let console = console();
    view! {
        <h1>{tr!("nav-overview")}</h1>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.overview(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok(overview) => view! {
                        <section class="card">
                            <h2>{tr!("home-balance")}</h2>
                            {if overview.balances.is_empty() {
                                view! { <Empty message=tr!("home-no-balance")/> }.into_any()
                            } else {
                                view! {
                                    <ul class="balances">
                                        {overview.balances.into_iter().map(|money| view! { <li class="balance">{i18n::money(&money)}</li> }).collect_view()}
                                    </ul>
                                }.into_any()
                            }}
                            <p><a class="button" href="/payouts/new">{tr!("payout-new")}</a></p>
                        </section>
                        <section class="card">
                            <h2>{tr!("home-outcomes")}</h2>
                            <OutcomesChart hours=overview.outcomes/>
                        </section>
                        <section class="card">
                            <h2>{tr!("home-recent-payouts")}</h2>
                            <PayoutsTable rows=overview.payouts/>
                        </section>
                        <section class="card">
                            <h2>{tr!("home-recent-orders")}</h2>
                            <OrdersTable rows=overview.orders/>
                        </section>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
