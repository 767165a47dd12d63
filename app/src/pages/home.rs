//! `/`: the merchant's balance, recent payouts and orders, and the idempotency outcomes of
//! the last 24 hours as a chart drawn on the server.

use leptos::prelude::*;

use crate::components::{console, failure_view, merchant_id_or_notice, Empty};
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
        <h1>"Overview"</h1>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.overview(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok(overview) => view! {
                        <section class="card">
                            <h2>"Balance"</h2>
                            {if overview.balances.is_empty() {
                                view! { <Empty message="No balance yet: capture an order to credit it."/> }.into_any()
                            } else {
                                view! {
                                    <ul class="balances">
                                        {overview.balances.into_iter().map(|money| view! { <li class="balance">{money.to_string()}</li> }).collect_view()}
                                    </ul>
                                }.into_any()
                            }}
                            <p><a class="button" href="/payouts/new">"New payout"</a></p>
                        </section>
                        <section class="card">
                            <h2>"Idempotency outcomes, last 24 hours"</h2>
                            <OutcomesChart hours=overview.outcomes/>
                        </section>
                        <section class="card">
                            <h2>"Recent payouts"</h2>
                            <PayoutsTable rows=overview.payouts/>
                        </section>
                        <section class="card">
                            <h2>"Recent orders"</h2>
                            <OrdersTable rows=overview.orders/>
                        </section>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
