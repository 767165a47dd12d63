//! `/confirm`: a destructive action asked on a page of its own before it is done (API.md §9),
//! without JavaScript: what will happen, in a sentence naming the object, a button "Confirm"
//! that posts the same form again (confirmed), and the way back without doing it. Reached
//! without such a form (a reload), it says there is nothing to confirm.

use leptos::prelude::*;
use leptos_fluent::tr;
use leptos_meta::Title;

use crate::components::{kept_form, nothing_kept, KeptFields};
use crate::console::Destructive;

/// The title and the sentence of what `what` will do to `object` (the id in its form's action).
fn what_happens(what: Destructive, object: String) -> (String, String) {
    let id = || object.clone();
    match what {
        Destructive::RevokeApiKey => (
            tr!("confirm-revoke-api-key"),
            tr!("confirm-revoke-api-key-body", {"id" => id()}),
        ),
        Destructive::DeleteEndpoint => (
            tr!("confirm-delete-endpoint"),
            tr!("confirm-delete-endpoint-body", {"id" => id()}),
        ),
        Destructive::RotateSecret => (
            tr!("confirm-rotate-secret"),
            tr!("confirm-rotate-secret-body", {"id" => id()}),
        ),
        Destructive::RemoveMember => (
            tr!("confirm-remove-member"),
            tr!("confirm-remove-member-body", {"id" => id()}),
        ),
        Destructive::RevokeInvitation => (
            tr!("confirm-revoke-invitation"),
            tr!("confirm-revoke-invitation-body", {"id" => id()}),
        ),
        Destructive::RejectPayout => (
            tr!("confirm-reject-payout"),
            tr!("confirm-reject-payout-body", {"id" => id()}),
        ),
        Destructive::CancelPayout => (
            tr!("confirm-cancel-payout"),
            tr!("confirm-cancel-payout-body", {"id" => id()}),
        ),
        Destructive::CancelOrder => (
            tr!("confirm-cancel-order"),
            tr!("confirm-cancel-order-body", {"id" => id()}),
        ),
    }
}

/// What an action's notice says once it was done.
pub fn done_sentence(what: Destructive) -> String {
    match what {
        Destructive::RevokeApiKey => tr!("done-revoke-api-key"),
        Destructive::DeleteEndpoint => tr!("done-delete-endpoint"),
        Destructive::RotateSecret => tr!("done-rotate-secret"),
        Destructive::RemoveMember => tr!("done-remove-member"),
        Destructive::RevokeInvitation => tr!("done-revoke-invitation"),
        Destructive::RejectPayout => tr!("done-reject-payout"),
        Destructive::CancelPayout => tr!("done-cancel-payout"),
        Destructive::CancelOrder => tr!("done-cancel-order"),
    }
}

#[component]
pub fn ConfirmPage() -> impl IntoView {
    let Some((kept, confirm)) = kept_form().and_then(|kept| {
        let confirm = kept.confirm.clone()?;
        Some((kept, confirm))
    }) else {
        return nothing_kept(tr!("confirm-nothing"));
    };
    // The object's id is the action's segment before its verb: `/settings/keys/{id}/revoke`.
    let object = kept
        .action
        .rsplit('/')
        .nth(1)
        .unwrap_or_default()
        .to_owned();
    let (title, sentence) = what_happens(confirm.what, object);
    view! {
        <Title text=title.clone()/>
        <section class="narrow card confirm">
            <h1>{title}</h1>
            <p>{sentence}</p>
            <form method="post" action=kept.action.clone() class="form">
                <KeptFields fields=kept.fields/>
                <input type="hidden" name="confirmed" value="1"/>
                <p class="actions">
                    <button type="submit" class="danger">{tr!("confirm-button")}</button>
                    " "
                    <a class="button secondary" href=confirm.back>{tr!("confirm-back")}</a>
                </p>
            </form>
        </section>
    }
    .into_any()
}
