//! `/confirm`: a destructive action asked on a page of its own before it is done (API.md §9),
//! without JavaScript: what will happen, in a sentence naming the object, a button "Confirm"
//! that posts the same form again (confirmed), and the way back without doing it. Reached
//! without such a form (a reload), it says there is nothing to confirm.

use leptos::prelude::*;
use leptos_fluent::tr;
use leptos_meta::Title;

use crate::components::{kept_form, nothing_kept, KeptFields};
use crate::console::{Destructive, Done};

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

/// What an action's notice says once it was done; `time_zone` is the reader's now.
pub fn done_sentence(done: Done, time_zone: chrono_tz::Tz) -> String {
    match done {
        Done::Confirmed(Destructive::RevokeApiKey) => tr!("done-revoke-api-key"),
        Done::Confirmed(Destructive::DeleteEndpoint) => tr!("done-delete-endpoint"),
        Done::Confirmed(Destructive::RotateSecret) => tr!("done-rotate-secret"),
        Done::Confirmed(Destructive::RemoveMember) => tr!("done-remove-member"),
        Done::Confirmed(Destructive::RevokeInvitation) => tr!("done-revoke-invitation"),
        Done::Confirmed(Destructive::RejectPayout) => tr!("done-reject-payout"),
        Done::Confirmed(Destructive::CancelPayout) => tr!("done-cancel-payout"),
        Done::Confirmed(Destructive::CancelOrder) => tr!("done-cancel-order"),
        Done::PayoutCreated => tr!("done-payout-created"),
        Done::RefundCreated => tr!("done-refund-created"),
        Done::PayoutApproved => tr!("done-payout-approved"),
        Done::ThresholdSaved => tr!("done-threshold-saved"),
        Done::ThresholdRemoved => tr!("done-threshold-removed"),
        Done::OrderCaptured => tr!("done-order-captured"),
        Done::EndpointAdded => tr!("done-endpoint-added"),
        Done::EndpointDisabled => tr!("done-endpoint-disabled"),
        Done::EndpointEnabled => tr!("done-endpoint-enabled"),
        Done::TestEventSent => tr!("done-test-event-sent"),
        Done::DeliveriesRecovered => tr!("done-deliveries-recovered"),
        Done::EventRedelivered => tr!("done-event-redelivered"),
        Done::ReconciliationRun => tr!("done-reconciliation-run"),
        Done::ApiKeyCreated => tr!("done-api-key-created"),
        Done::ApiKeyRolled => tr!("done-api-key-rolled"),
        Done::InvitationMailed => tr!("team-invitation-mailed"),
        Done::InvitationAccepted => tr!("done-invitation-accepted"),
        Done::RoleChanged => tr!("done-role-changed"),
        Done::ProfileSaved => tr!("profile-saved", {"zone" => time_zone.name()}),
        Done::TwoFactorRequired => tr!("done-two-factor-required"),
        Done::TwoFactorNotRequired => tr!("done-two-factor-not-required"),
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
