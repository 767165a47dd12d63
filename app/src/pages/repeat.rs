//! `/repeat`: a console submit the repeat guard held back (API.md §9): it looks like what the
//! merchant did from the console minutes ago under another form. Nothing was done; the page
//! links the first one and offers "Do it again", which submits the same fields with the new
//! form's key. Reached without such a submit (a reload), it says there is nothing to repeat.

use leptos::prelude::*;
use leptos_fluent::tr;
use leptos_meta::Title;

use crate::components::{kept_form, nothing_kept, KeptFields};

#[component]
pub fn RepeatPage() -> impl IntoView {
    let Some((kept, repeat)) = kept_form().and_then(|kept| {
        let repeat = kept.repeat.clone()?;
        Some((kept, repeat))
    }) else {
        return nothing_kept(tr!("repeat-nothing"));
    };
    view! {
        <Title text=tr!("repeat-title")/>
        <h1>{tr!("repeat-title")}</h1>
        <p>{tr!("repeat-body")}" "<a href=repeat.first data-testid="repeat-first">{tr!("repeat-first")}</a></p>
        <p>{tr!("repeat-nothing-done")}</p>
        <form method="post" action=repeat.action class="form card">
            <KeptFields fields=kept.fields/>
            <input type="hidden" name="again" value="1"/>
            <button type="submit" data-testid="repeat-again">{tr!("repeat-again")}</button>
        </form>
    }
    .into_any()
}
