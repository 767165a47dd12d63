//! `/settings/profile`: the signed-in user's own settings, for now the time zone every time
//! of the console is shown in (an IANA name, UTC unless chosen). Its form posts to the same
//! address; the server checks the name and comes back here, whose notice says what it saved.

use leptos::prelude::*;
use leptos_fluent::tr;

use crate::components::{csrf_token, current_user, not_found_view, query_param};
use crate::i18n::time_zones;

#[component]
pub fn Profile() -> impl IntoView {
    let Some(user) = current_user() else {
        return not_found_view();
    };
    let chosen = user.time_zone.name();
    let refused = (query_param("error") == "time_zone")
        .then(|| view! { <p class="alert" role="alert">{tr!("profile-refused")}</p> });
    view! {
        <h1>{tr!("nav-profile")}</h1>
        {refused}
        <form method="post" action="/settings/profile" class="form card">
            <input type="hidden" name="csrf" value=csrf_token()/>
            <label for="time_zone">{tr!("profile-time-zone")}</label>
            <select id="time_zone" name="time_zone" aria-describedby="time_zone_hint">
                {time_zones().map(|zone| view! {
                    <option value=zone selected=zone == chosen>{zone}</option>
                }).collect_view()}
            </select>
            <p class="hint" id="time_zone_hint">{tr!("profile-time-zone-hint")}</p>
            <button type="submit">{tr!("profile-save")}</button>
        </form>
    }
    .into_any()
}
