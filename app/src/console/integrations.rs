//! A merchant's integrations: webhook endpoints, their events and deliveries, and API keys.

use async_trait::async_trait;
use uuid::Uuid;

use super::*;

#[derive(Debug, Clone)]
pub struct EndpointRow {
    pub id: EndpointId,
    pub url: String,
    /// The event types it receives.
    pub events: Subscribed,
    pub status: EndpointStatus,
}

/// A change to one of the merchant's webhook endpoints from the console.
#[derive(Debug, Clone)]
pub enum EndpointChange {
    /// A new endpoint for `events` (every event when empty); its secret is shown once.
    Add { url: String, events: Vec<String> },
    /// A new secret, the old one signing too for `overlap` (`now`, `1h`, `24h`, `7d`); the new
    /// secret is shown once.
    RotateSecret { id: EndpointId, overlap: String },
    /// A signed test event of `event_type`, to this endpoint alone.
    SendTestEvent { id: EndpointId, event_type: String },
    /// "Recover failed deliveries": every delivery to the endpoint that ran out of retries,
    /// last tried on or after the day `since` (`YYYY-MM-DD`, UTC), made again.
    RecoverFailed { id: EndpointId, since: String },
}

/// The state a webhook endpoint is asked to be in: asking twice changes nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointState {
    Disabled,
    Enabled,
    Deleted,
}

/// The event types a webhook endpoint receives.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subscribed {
    /// Every type, those to come too (`*`).
    Every,
    Only(Vec<EventType>),
}

#[derive(Debug, Clone)]
pub struct EventRow {
    pub id: EventId,
    pub event_type: EventType,
    pub created_at: DateTime<Utc>,
    pub deliveries: Vec<DeliveryRow>,
}

impl Listed for EventRow {
    type Id = EventId;
}

#[derive(Debug, Clone)]
pub struct DeliveryRow {
    pub url: String,
    pub status: DeliveryStatus,
    pub attempts: Vec<AttemptRow>,
    /// A `curl` command that sends the delivery again, signed now (for those who manage the
    /// merchant's integrations).
    pub curl: Option<String>,
}

#[derive(Debug, Clone)]
pub struct AttemptRow {
    pub delivery_id: Uuid,
    /// None when no answer came (timeout, refused connection).
    pub status_code: Option<i16>,
    pub latency_ms: i32,
    pub error: Option<String>,
    pub at: DateTime<Utc>,
}

/// One of the merchant's API keys, never with its secret.
#[derive(Debug, Clone)]
pub struct ApiKeyRow {
    pub id: ApiKeyId,
    pub name: String,
    /// The secret's first 12 characters, for recognition.
    pub prefix: String,
    pub access: Access,
    pub created_at: DateTime<Utc>,
    pub last_used_at: Option<DateTime<Utc>>,
    /// Set by a roll or a revocation: when it stops, or stopped, working.
    pub expires_at: Option<DateTime<Utc>>,
    /// The email of the member it acts for (whose role bounds it); `None` when made for the
    /// merchant.
    pub created_by: Option<String>,
}

/// A change to the merchant's API keys, made under the form's idempotency key.
#[derive(Debug, Clone)]
pub enum ApiKeyChange {
    /// A new key named `name` with `access`; its secret is shown once. It acts for the member who makes it, unless an owner makes it `for_merchant`.
    Create {
        name: String,
        access: Access,
        for_merchant: bool,
    },
    /// A successor to key `id` with a new secret, shown once; `id` keeps working for `overlap`
    /// (`now`, `1h`, `24h`, `7d`).
    Roll { id: ApiKeyId, overlap: String },
    /// Key `id` stops working now.
    Revoke { id: ApiKeyId },
}

/// A merchant's integrations: webhook endpoints, their events and deliveries, and API keys.
#[async_trait]
pub trait IntegrationsConsole: Send + Sync {
    /// The merchant's webhook endpoints, and a page of its events that pass `filter` (the status
    /// of one of their deliveries, their days), newest first, with every delivery attempt.
    async fn webhooks(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter<DeliveryStatus>,
        starting_after: Option<EventId>,
    ) -> ConsoleResult<(Vec<EndpointRow>, Page<EventRow>)>;
    /// Makes `change` under the form's key (the API's commands: any number of submits of one
    /// form change it once); the secret to show once, for a new endpoint or a rotation.
    async fn change_endpoint(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: EndpointChange,
        idempotency_key: &IdempotencyKey,
    ) -> ConsoleResult<Option<String>>;
    /// Disables, enables or deletes the merchant's endpoint `id`.
    async fn set_endpoint_state(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &EndpointId,
        state: EndpointState,
    ) -> ConsoleResult<()>;
    /// `POST /v1/events/{id}/redeliver` with the form's key; `Err` text when refused.
    async fn redeliver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        event_id: &EventId,
        idempotency_key: &IdempotencyKey,
    ) -> ConsoleResult<()>;
    /// The merchant's API keys, expired ones included, newest first.
    async fn api_keys(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<ApiKeyRow>>;
    /// Makes `change` under the form's key (the API's commands: any number of submits of one
    /// form change it once); the new secret when this submit made the key, to show once.
    async fn change_api_key(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: ApiKeyChange,
        idempotency_key: &IdempotencyKey,
    ) -> ConsoleResult<Option<String>>;
}
