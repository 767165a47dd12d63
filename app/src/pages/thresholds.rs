//! `/settings/payouts` (owners and admins): the approval threshold of each currency. A payout at
//! or above its currency's threshold awaits a second member's approval; no threshold, no
//! approval. The amount is typed in major units, as the new-payout form's Amount (`500.00`);
//! an empty amount removes the currency's threshold. The server checks every change.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{
    console, csrf_token, failure_view, may, merchant_id_or_notice, query_param, refusal_notice,
    Empty,
};
use crate::console::Permission;
use crate::i18n::money;
use crate::notice::refused_page;

#[component]
pub fn PayoutSettings() -> impl IntoView {
    let merchant_id = match merchant_id_or_notice() {
        Ok(merchant_id) => merchant_id,
        Err(notice) => return notice,
    };
    if !may(Permission::ManageThresholds) {
        return refused_page(tr!("nav-payout-settings"), Permission::ManageThresholds);
    }
    let error = refusal_notice();
    let console = console();
    view! {
        <h1>{tr!("nav-payout-settings")}</h1>
        <p class="hint">{tr!("threshold-hint")}</p>
        {error.map(|message| view! { <p class="alert" role="alert">{message}</p> })}
        {(query_param("warning") == "alone").then(|| view! { <p class="alert" role="alert">{tr!("threshold-alone")}</p> })}
        <form method="post" action="/settings/payouts" class="form card" id="threshold">
            <input type="hidden" name="csrf" value=csrf_token()/>
            <label for="threshold-amount">{tr!("threshold-amount")}</label>
            <input id="threshold-amount" name="amount" inputmode="decimal" placeholder="500.00"/>
            <label for="threshold-currency">{tr!("field-currency")}</label>
            <select id="threshold-currency" name="currency">
                <option>"EUR"</option><option>"USD"</option><option>"GBP"</option><option>"CNY"</option><option>"JPY"</option>
            </select>
            <button type="submit">{tr!("threshold-save")}</button>
        </form>
        <h2>{tr!("threshold-current")}</h2>
        <Suspense fallback=|| ()>
            {Suspend::new(async move {
                match console.thresholds(&merchant_id).await {
                    Err(error) => failure_view(error),
                    Ok(thresholds) if thresholds.is_empty() => {
                        view! { <Empty message=tr!("threshold-none")/> }.into_any()
                    }
                    Ok(thresholds) => view! {
                        <table class="thresholds">
                            <thead><tr><th>{tr!("field-currency")}</th><th>{tr!("threshold-amount")}</th></tr></thead>
                            <tbody>
                                {thresholds.into_iter().map(|threshold| view! {
                                    <tr><td>{threshold.currency.clone()}</td><td>{money(&threshold)}</td></tr>
                                }).collect_view()}
                            </tbody>
                        </table>
                    }.into_any(),
                }
            })}
        </Suspense>
    }
    .into_any()
}
