//! Every command that takes an `Idempotency-Key`, declared once: the list the database's
//! `idempotency_endpoint` enum must match (`ops::keyed_commands` compares them) and the one
//! dispatch that renders a key's recorded answer again from the resource it names, whatever the
//! command. A new keyed command is one line here (and its value in a migration's enum).

use kaadxpay_types::ids::MerchantId;

use crate::accounts::auth::keys::{CreateKey, RollKey};
use crate::contract::error::Error;
use crate::idempotency::{Resource, StoredResponse};
use crate::payments::approvals::{ApprovePayout, CancelPayout, RejectPayout};
use crate::payments::orders::CreateOrder;
use crate::payments::payouts::CreatePayout;
use crate::payments::refunds::CreateRefund;
use crate::reconcile::on_request;
use crate::service::commands::Command;
use crate::service::state::AppState;
use crate::webhooks::endpoints::CreateEndpoint;
use crate::webhooks::events::RedeliverEvent;
use crate::webhooks::management::{Recover, RotateSecret, SendTestEvent};

macro_rules! keyed_commands {
    ($($command:ty),+ ; scoped beyond a merchant: $($endpoint:path),+ $(,)?) => {
        /// Every keyed command's endpoint (its method and route template), and those of the
        /// keyed operations whose keys may be support staff's ([`crate::idempotency::Scope`]),
        /// which record their answers' bytes and so are never rendered again.
        pub const ENDPOINTS: &[&str] = &[$(<$command as Command>::ENDPOINT,)+ $($endpoint),+];

        /// The answer that created `resource`, rendered again by the command of `endpoint`
        /// (see [`Command::render`]); `None` when no command has that endpoint.
        pub async fn render(
            state: &AppState,
            endpoint: &str,
            merchant_id: &MerchantId,
            resource: Resource,
        ) -> Option<Result<StoredResponse, Error>> {
            $(
                if endpoint == <$command as Command>::ENDPOINT {
                    return Some(<$command as Command>::render(state, merchant_id, resource).await);
                }
            )+
            None
        }
    };
}

keyed_commands!(
    CreateOrder,
    CreatePayout,
    ApprovePayout,
    RejectPayout,
    CancelPayout,
    CreateRefund,
    CreateEndpoint,
    RotateSecret,
    Recover,
    SendTestEvent,
    RedeliverEvent,
    CreateKey,
    RollKey;
    scoped beyond a merchant: on_request::ENDPOINT,
);
