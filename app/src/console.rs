//! The `Console` trait: everything the console's pages and forms need from the backend, with
//! the plain data they show. The server implements it over the same domain and idempotency
//! engine as the JSON API and puts it into each request's Leptos context.

use async_trait::async_trait;
use chrono::{DateTime, NaiveDate, Utc};
use kaadxpay_types::ids::MerchantId;
pub use kaadxpay_types::{
    BalanceTransactionType, Moment, Money, OrderStatus, PayoutStatus, Permission, Role,
};

/// Who is signed in, put into the request by the server's session layer.
#[derive(Debug, Clone)]
pub struct CurrentUser {
    /// The user's id (`usr_…`).
    pub id: String,
    pub email: String,
    /// `Some` for a merchant user; `None` for support staff, who see every merchant.
    pub merchant_id: Option<MerchantId>,
    /// The member's role; `None` for support staff.
    pub role: Option<Role>,
    /// The session's token against cross-site request forgery, for every form.
    pub csrf_token: String,
    /// The address the request came from, for the audit log.
    pub address: Option<std::net::IpAddr>,
    /// Whether the user has two-step sign-in.
    pub two_factor: bool,
    /// Whether the user's merchant requires two-step sign-in of every member.
    pub two_factor_required: bool,
    /// The IANA time zone the user reads times in (`Europe/Berlin`); `UTC` unless chosen.
    pub time_zone: String,
}

impl CurrentUser {
    pub fn is_support(&self) -> bool {
        self.merchant_id.is_none()
    }

    /// Whether this member's role allows `permission` (support staff: never).
    pub fn may(&self, permission: Permission) -> bool {
        self.role.is_some_and(|role| role.may(permission))
    }

    /// Whether the user must set up two-step sign-in before anything else (its merchant
    /// requires it and it has none).
    pub fn must_enrol(&self) -> bool {
        self.two_factor_required && !self.two_factor
    }

    /// Whose data this user may see.
    pub fn scope(&self) -> Scope {
        match &self.merchant_id {
            Some(merchant_id) => Scope::Merchant(merchant_id.clone()),
            None => Scope::AllMerchants,
        }
    }
}

/// Whose data a page shows: one merchant's, or every merchant's. Only a signed-in user has a
/// scope ([`CurrentUser::scope`]), so "all merchants" is a signed-in support user's and a page
/// asked without a user has nothing to show.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Scope {
    Merchant(MerchantId),
    AllMerchants,
}

impl Scope {
    /// The one merchant whose data it is, if it is one merchant's.
    pub fn merchant(&self) -> Option<&str> {
        match self {
            Scope::Merchant(merchant_id) => Some(merchant_id.as_str()),
            Scope::AllMerchants => None,
        }
    }
}

/// The console's own CSRF token before sign-in (the login form), put into the request too.
#[derive(Debug, Clone)]
pub struct CsrfToken(pub String);

/// Put into the request of a visitor whose password was right and who has two-step sign-in:
/// the sign-in page asks for the code.
#[derive(Debug, Clone, Copy)]
pub struct SecondStep;

/// Two-step sign-in being set up: the secret in base32 and as a QR code (an `<svg>` element
/// drawn by the server from the `otpauth://` URL).
#[derive(Debug, Clone)]
pub struct Enrolment {
    pub secret: String,
    pub qr_svg: String,
}

/// The signed-in user's two-step sign-in, for `/settings/security`.
#[derive(Debug, Clone)]
pub struct Security {
    /// Since when it is on; `None` while it is not.
    pub enrolled_at: Option<DateTime<Utc>>,
    pub recovery_codes_left: i64,
    /// While it is not on: what to set it up with.
    pub enrolment: Option<Enrolment>,
    /// Whether the merchant requires it of every member.
    pub required: bool,
}

#[derive(Debug, Clone)]
pub struct PayoutRow {
    pub id: String,
    pub money: Money,
    pub status: String,
    pub idempotency_key: String,
    pub created_at: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub struct PayoutView {
    pub row: PayoutRow,
    pub account_holder: String,
    pub iban: String,
    pub partner_transfer_id: Option<String>,
    pub failure_code: Option<String>,
    pub updated_at: DateTime<Utc>,
    /// Who created it: `(kind, name)`, `user` by email or `api_key` by id.
    pub created_by: Option<(String, String)>,
    /// The member it counts as made by (its creator, or the maker of the key that made it), by
    /// email: four eyes are two people.
    pub accountable: Option<String>,
    /// The member who approved or rejected it, and when.
    pub decided: Option<(String, DateTime<Utc>)>,
}

/// A decision on a payout awaiting approval.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Decision {
    Approve,
    Reject,
    /// By the payout's own member, an owner or an admin: the amount comes back.
    Cancel,
}

/// One item of the merchant's statement: a change of its `available` balance.
#[derive(Debug, Clone)]
pub struct StatementRow {
    pub id: String,
    /// One of [`BalanceTransactionType::NAMES`].
    pub kind: String,
    /// Signed: what `available` changed by.
    pub money: Money,
    pub balance_after: Money,
    /// `(type, id)` of what changed it: `order`, `payout`, `refund`, `top_up`, `reversal`.
    pub source: (String, String),
    pub created_at: DateTime<Utc>,
}

/// The merchant's balance: what is available and what is reserved, per currency.
#[derive(Debug, Clone)]
pub struct BalanceView {
    pub available: Vec<Money>,
    pub reserved: Vec<Money>,
}

#[derive(Debug, Clone)]
pub struct OrderRow {
    pub id: String,
    pub money: Money,
    pub status: String,
    pub description: Option<String>,
    pub created_at: DateTime<Utc>,
}

/// Idempotency outcomes in one hour of the last 24.
#[derive(Debug, Clone, Default)]
pub struct HourOutcomes {
    /// `HH:00`, UTC.
    pub hour: String,
    pub new: i64,
    pub replayed: i64,
    pub in_progress: i64,
    pub mismatch: i64,
}

#[derive(Debug, Clone)]
pub struct Overview {
    pub balances: Vec<Money>,
    pub payouts: Vec<PayoutRow>,
    pub orders: Vec<OrderRow>,
    /// Oldest hour first, 24 of them.
    pub outcomes: Vec<HourOutcomes>,
}

/// One page of a list, and the cursor of the next one.
#[derive(Debug, Clone)]
pub struct Page<T> {
    pub rows: Vec<T>,
    pub next: Option<String>,
}

#[derive(Debug, Clone)]
pub struct KeyView {
    pub merchant_id: String,
    pub key: String,
    pub status: String,
    pub endpoint: String,
    pub request_hash: String,
    pub response_status: Option<u16>,
    /// `(type, id)` of the linked resource.
    pub resource: Option<(String, String)>,
    pub recovery_point: String,
    pub error: Option<String>,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub response_body: Option<String>,
}

/// A new-payout form as submitted.
#[derive(Debug, Clone)]
pub struct PayoutForm {
    pub idempotency_key: String,
    /// In major units, as typed (`12.50`).
    pub amount: String,
    pub currency: String,
    pub account_holder: String,
    pub iban: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Submission {
    /// The payout of this form (made now or by an earlier submit of the same form).
    Payout(String),
    /// A definitive refusal, to show beside the form.
    Refused(Refusal),
}

/// Why a form was refused: the API's error code and the field it names, if any. Pages show a
/// fixed sentence for each known code (`components::refusal_sentence`), never text from a URL.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    pub code: String,
    pub param: Option<String>,
}

impl Refusal {
    pub fn new(code: &str) -> Self {
        Self {
            code: code.to_owned(),
            param: None,
        }
    }
}

/// A submitted form kept for the page it comes back on (API.md §9 "Forms and people"), put into
/// that page's request by the server: what the user typed (never a password or a code), with
/// the refusal and the field it is about when it was refused, or with what it looks like a
/// repeat of.
#[derive(Debug, Clone, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct KeptForm {
    /// The page that shows it again (`/payouts/new`).
    pub page: String,
    /// Where the form was posted (`/payouts`): of the page's forms, the one it is.
    pub action: String,
    /// The fields as typed, by name; the `idempotency_key` only when the form is the same
    /// intent still (a step-up, a repeat), never after a refusal.
    pub fields: Vec<(String, String)>,
    pub refusal: Option<FieldRefusal>,
    pub repeat: Option<Repeat>,
    /// Set when it is a destructive action to confirm first (`/confirm`).
    pub confirm: Option<Confirm>,
}

/// A destructive action to confirm: what it does, and the page it was asked from (to go back
/// to without doing it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Confirm {
    pub what: Destructive,
    pub back: String,
}

impl KeptForm {
    /// Nothing typed, for `page`.
    pub fn at(page: &str) -> Self {
        Self {
            page: page.to_owned(),
            ..Self::default()
        }
    }

    /// What was typed into field `name`, or empty.
    pub fn typed(&self, name: &str) -> String {
        self.fields
            .iter()
            .find(|(field, _)| field == name)
            .map(|(_, value)| value.clone())
            .unwrap_or_default()
    }
}

/// An action that cannot be undone, or not without loss, which the console confirms on a page
/// of its own first (API.md §9) and, once done, says was done.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Destructive {
    RevokeApiKey,
    DeleteEndpoint,
    RotateSecret,
    RemoveMember,
    RevokeInvitation,
    RejectPayout,
    CancelPayout,
    CancelOrder,
}

/// What the last action did, for the next page's notice (`role="status"`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Done(pub Destructive);

/// A refusal beside the form's field `field` (empty: about the form as a whole).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FieldRefusal {
    pub refusal: Refusal,
    pub field: String,
}

/// A submit held back by the repeat guard: the form's action, to "Do it again", and the page of
/// what the first submit made.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Repeat {
    pub action: String,
    pub first: String,
}

#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// Any identifier (exact): a request id, idempotency key (or its prefix), order, payout,
    /// event, delivery or delivery attempt id, partner transfer id, end-to-end key (`kxp-…`) or
    /// merchant id.
    pub text: String,
    pub status: String,
    /// `YYYY-MM-DD`, inclusive.
    pub from: String,
    pub to: String,
}

/// A key, payout or order that support's search found, with the page of its timeline.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub merchant_id: String,
    pub subject: Subject,
    /// The key's endpoint, or the resource's amount.
    pub detail: String,
    pub status: String,
    pub created_at: DateTime<Utc>,
}

impl SearchHit {
    pub fn href(&self) -> String {
        self.subject.support_href(&self.merchant_id)
    }
}

#[derive(Debug, Clone)]
pub struct RunRow {
    pub id: String,
    pub date: NaiveDate,
    pub applied: bool,
    /// `running`, `completed` or `partial`.
    pub status: String,
    pub created_at: DateTime<Utc>,
}

/// A magic destination IBAN of test mode and what a payout to it does.
#[derive(Debug, Clone)]
pub struct MagicIban {
    pub iban: String,
    /// The simulator's scenario for it: `paid`, `refused`, `returned`, `slow`, `duplicated` or
    /// `held`.
    pub scenario: String,
}

#[derive(Debug, Clone)]
pub struct RunItem {
    pub kind: String,
    pub merchant_id: Option<String>,
    pub payout_id: Option<String>,
    pub transfer_id: Option<String>,
    pub money: Option<Money>,
    pub action: Option<String>,
    /// Why a reversal was not made: the partner's code, or what went wrong.
    pub detail: Option<String>,
}

#[derive(Debug, Clone)]
pub struct EndpointRow {
    pub id: String,
    pub url: String,
    /// The event types it receives (`*`: all).
    pub events: Vec<String>,
    /// `enabled`, or `disabled` after it answered `410 Gone`.
    pub status: String,
}

/// One of the merchant's API keys, never with its secret.
#[derive(Debug, Clone)]
pub struct ApiKeyRow {
    pub id: String,
    pub name: String,
    /// The secret's first 12 characters, for recognition.
    pub prefix: String,
    /// `read_only` or `read_write`.
    pub access: String,
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
    /// A new key named `name` with `access` (`read_only` or `read_write`); its secret is shown
    /// once. It acts for the member who makes it, unless an owner makes it `for_merchant`.
    Create {
        name: String,
        access: String,
        for_merchant: bool,
    },
    /// A successor to key `id` with a new secret, shown once; `id` keeps working for `overlap`
    /// (`now`, `1h`, `24h`, `7d`).
    Roll { id: String, overlap: String },
    /// Key `id` stops working now.
    Revoke { id: String },
}

#[derive(Debug, Clone)]
pub struct AttemptRow {
    pub delivery_id: String,
    /// None when no answer came (timeout, refused connection).
    pub status_code: Option<i16>,
    pub latency_ms: i32,
    pub error: Option<String>,
    pub at: DateTime<Utc>,
}

#[derive(Debug, Clone)]
pub struct DeliveryRow {
    pub url: String,
    pub status: String,
    pub attempts: Vec<AttemptRow>,
    /// A `curl` command that sends the delivery again, signed now (for those who manage the
    /// merchant's integrations).
    pub curl: Option<String>,
}

#[derive(Debug, Clone)]
pub struct EventRow {
    pub id: String,
    pub event_type: String,
    pub created_at: DateTime<Utc>,
    pub deliveries: Vec<DeliveryRow>,
}

/// Whose timeline: one of the merchant's keys, payouts or orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Key(String),
    Payout(String),
    Order(String),
}

impl Subject {
    /// The support console's page of this subject's timeline in `merchant_id`'s account.
    pub fn support_href(&self, merchant_id: &str) -> String {
        let (name, value) = match self {
            Subject::Key(key) => ("key", key),
            Subject::Payout(id) => ("payout", id),
            Subject::Order(id) => ("order", id),
        };
        let encode = |text: &str| {
            percent_encoding::utf8_percent_encode(text, percent_encoding::NON_ALPHANUMERIC)
                .to_string()
        };
        format!(
            "/support/timeline?merchant={}&{name}={}",
            encode(merchant_id),
            encode(value)
        )
    }
}

/// One moment of a timeline.
#[derive(Debug, Clone)]
pub struct TimelineEntry {
    /// UTC, to the millisecond.
    pub at: DateTime<Utc>,
    /// Milliseconds since the moment before; `None` for the first.
    pub after_ms: Option<i64>,
    pub moment: Moment,
    pub reference: Option<String>,
}

/// A list page's filters, as typed into its form (each may be empty): a status, and a range of
/// UTC days, both inclusive (`YYYY-MM-DD`).
#[derive(Debug, Clone, Default)]
pub struct ListFilter {
    pub status: String,
    pub from: String,
    pub to: String,
}

/// The request log's filters on `/requests`, as typed into its form (each may be empty).
#[derive(Debug, Clone, Default)]
pub struct RequestFilters {
    pub idempotency_key: String,
    /// An HTTP status code.
    pub status: String,
    /// A route template with its method, e.g. `POST /v1/orders`.
    pub route: String,
    /// `new`, `replayed`, `in_progress` or `mismatch`.
    pub verdict: String,
    /// `YYYY-MM-DD`, inclusive, UTC; ignored by exact look-ups (a key or a request id).
    pub from: String,
    pub to: String,
    /// A request id, or the id the client sent, or part of one.
    pub search: String,
}

/// One logged request, redacted as it was stored.
#[derive(Debug, Clone)]
pub struct RequestView {
    pub id: String,
    pub at: DateTime<Utc>,
    pub route: String,
    pub path: String,
    pub idempotency_key: Option<String>,
    pub verdict: Option<String>,
    pub status: i16,
    pub error_code: Option<String>,
    pub latency_ms: f64,
    pub api_key_id: Option<String>,
    pub user: Option<String>,
    pub client_address: Option<String>,
    pub request_body: Option<String>,
    pub response_body: Option<String>,
    pub client_request_id: Option<String>,
}

/// A member of the merchant's team.
#[derive(Debug, Clone)]
pub struct Member {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub joined_at: DateTime<Utc>,
}

/// An invitation not yet accepted.
#[derive(Debug, Clone)]
pub struct PendingInvitation {
    pub id: String,
    pub email: String,
    pub role: Role,
    pub expires_at: DateTime<Utc>,
}

/// A one-time notice for the next page, such as a new invitation's link (shown once: only its
/// hash is stored).
#[derive(Debug, Clone)]
pub struct Flash(pub String);

/// A change to one of the merchant's webhook endpoints from the console.
#[derive(Debug, Clone)]
pub enum EndpointChange {
    /// A new endpoint for `events` (every event when empty); its secret is shown once.
    Add { url: String, events: Vec<String> },
    /// A new secret, the old one signing too for `overlap` (`now`, `1h`, `24h`, `7d`); the new
    /// secret is shown once.
    RotateSecret { id: String, overlap: String },
    /// A signed test event of `event_type`, to this endpoint alone.
    SendTestEvent { id: String, event_type: String },
    /// "Recover failed deliveries": every delivery to the endpoint that ran out of retries,
    /// last tried on or after the day `since` (`YYYY-MM-DD`, UTC), made again.
    RecoverFailed { id: String, since: String },
}

/// The state a webhook endpoint is asked to be in: asking twice changes nothing more.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EndpointState {
    Disabled,
    Enabled,
    Deleted,
}

/// A failure of the backend; the page says something went wrong, the log says what.
/// The audit log page's filters, from its address: an action (`member.role_changed`) and a
/// range of days (`YYYY-MM-DD`, inclusive); empty for all.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub action: String,
    pub from: String,
    pub to: String,
}

/// An audit log entry as the page shows it.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    pub id: String,
    pub at: DateTime<Utc>,
    /// `user`, `api_key` or `support`.
    pub actor_kind: String,
    /// An email or an API key's id.
    pub actor: String,
    pub action: String,
    pub object_type: String,
    pub object_id: String,
    pub address: Option<String>,
    /// The object before and after, as compact JSON.
    pub before: Option<String>,
    pub after: Option<String>,
}

#[derive(Debug, Clone)]
pub struct ConsoleError(pub String);

pub type ConsoleResult<T> = Result<T, ConsoleError>;

#[async_trait]
pub trait Console: Send + Sync + 'static {
    async fn overview(&self, merchant_id: &MerchantId) -> ConsoleResult<Overview>;
    /// What the merchant may pay out now, per currency it holds a balance in.
    async fn available(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>>;
    /// The merchant's payouts that pass `filter`; a refusal names a filter that cannot be read.
    async fn payouts(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<PayoutRow>, Refusal>>;
    async fn payout(&self, merchant_id: &MerchantId, id: &str)
        -> ConsoleResult<Option<PayoutView>>;
    /// Submits a payout form through the idempotency engine, like `POST /v1/payouts` with the
    /// form's key: any number of submits of one form make one payout.
    async fn submit_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        form: PayoutForm,
    ) -> ConsoleResult<Submission>;
    /// The merchant's payouts awaiting approval that `user` may approve (not its own), oldest
    /// first: `/payouts/approvals`, and the count on the menu's link to it.
    async fn awaiting_decision(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<Vec<PayoutRow>>;
    /// Whether a member of the merchant other than `user` could approve a payout (its role may
    /// create payouts): a threshold saved when none could would lock payouts awaiting approval.
    async fn another_approver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<bool>;
    /// What `user` may decide on `payout` awaiting approval: approve and reject (a member whose
    /// role may create payouts, and whose payout it is not), cancel (its own member, an owner or
    /// an admin); the server checks again when the form comes.
    fn decisions(&self, user: &CurrentUser, payout: &PayoutView) -> Vec<Decision>;
    /// Approves, rejects or cancels the merchant's payout `id` under the form's key (any number
    /// of submits of one form, or two members at once: one outcome); refused with `forbidden` to
    /// a member who may not.
    async fn decide_payout(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &str,
        decision: Decision,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<(), Refusal>>;
    /// The merchant's approval thresholds, one per currency.
    async fn thresholds(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<Money>>;
    /// Sets the threshold of `currency` to `amount` in major units as typed (`500.00`), or
    /// removes it when `amount` is empty.
    async fn change_threshold(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        currency: &str,
        amount: &str,
    ) -> ConsoleResult<Result<(), Refusal>>;
    /// The merchant's balance, available and reserved.
    async fn balance(&self, merchant_id: &MerchantId) -> ConsoleResult<BalanceView>;
    /// The merchant's statement items that pass `filter` (their type as the status, their
    /// days), newest first; a refusal names a filter that cannot be read.
    async fn statement(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<StatementRow>, Refusal>>;
    /// The merchant's orders that pass `filter`; a refusal names a filter that cannot be read.
    async fn orders(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<OrderRow>, Refusal>>;
    async fn order(&self, merchant_id: &MerchantId, id: &str) -> ConsoleResult<Option<OrderRow>>;
    /// `PUT /v1/orders/{id}` semantics (to `captured` or `cancelled`), audited as `user`'s: a
    /// refusal when the move is not allowed.
    async fn set_order_status(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &str,
        to: OrderStatus,
    ) -> ConsoleResult<Result<(), Refusal>>;
    async fn key(&self, merchant_id: &MerchantId, key: &str) -> ConsoleResult<Option<KeyView>>;
    /// Support's search across merchants; read only.
    async fn search(&self, query: &SearchQuery) -> ConsoleResult<Vec<SearchHit>>;
    /// The merchant's webhook endpoints, and a page of its events that pass `filter` (the status
    /// of one of their deliveries, their days), newest first, with every delivery attempt.
    async fn webhooks(
        &self,
        merchant_id: &MerchantId,
        filter: &ListFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<(Vec<EndpointRow>, Page<EventRow>), Refusal>>;
    /// Makes `change` under the form's key (the API's commands: any number of submits of one
    /// form change it once); the secret to show once, for a new endpoint or a rotation.
    async fn change_endpoint(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: EndpointChange,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<Option<String>, Refusal>>;
    /// Disables, enables or deletes the merchant's endpoint `id`.
    async fn set_endpoint_state(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        id: &str,
        state: EndpointState,
    ) -> ConsoleResult<Result<(), Refusal>>;
    /// The event types an endpoint can receive, or be sent a test of.
    fn event_types(&self) -> Vec<String>;
    /// The merchant's API keys, expired ones included, newest first.
    async fn api_keys(&self, merchant_id: &MerchantId) -> ConsoleResult<Vec<ApiKeyRow>>;
    /// Makes `change` under the form's key (the API's commands: any number of submits of one
    /// form change it once); the new secret when this submit made the key, to show once.
    async fn change_api_key(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        change: ApiKeyChange,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<Option<String>, Refusal>>;
    /// `POST /v1/events/{id}/redeliver` with the form's key; `Err` text when refused.
    async fn redeliver(
        &self,
        user: &CurrentUser,
        merchant_id: &MerchantId,
        event_id: &str,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<(), Refusal>>;
    /// The latest runs whose status and day (the day reconciled) pass `filter`, each with the
    /// status of the items `scope` may see.
    async fn runs(
        &self,
        scope: &Scope,
        filter: &ListFilter,
    ) -> ConsoleResult<Result<Vec<RunRow>, Refusal>>;
    /// Test mode (the partner is the simulator): `Some` with its magic IBANs, else `None`.
    async fn test_mode(&self) -> Option<Vec<MagicIban>>;
    /// "Run reconciliation now": an applied run of `date` (`YYYY-MM-DD`) under the form's key,
    /// for support staff, or anyone in test mode (the backend checks); the run's id. Any number
    /// of submits of one form make one run; a member's is audited as `user`'s.
    async fn run_reconciliation(
        &self,
        user: &CurrentUser,
        date: &str,
        idempotency_key: &str,
    ) -> ConsoleResult<Result<String, Refusal>>;
    /// The merchant's request log, newest first, filtered; a refusal names a filter that
    /// cannot be read.
    async fn requests(
        &self,
        merchant_id: &MerchantId,
        filters: &RequestFilters,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<RequestView>, Refusal>>;
    async fn request(
        &self,
        merchant_id: &MerchantId,
        id: &str,
    ) -> ConsoleResult<Option<RequestView>>;
    /// The merchant's members and its invitations not yet accepted.
    async fn team(
        &self,
        merchant_id: &MerchantId,
    ) -> ConsoleResult<(Vec<Member>, Vec<PendingInvitation>)>;
    /// The email and role an invitation link is for, while it works.
    async fn invitation(&self, token: &str) -> ConsoleResult<Option<(String, Role)>>;
    /// What happened to the merchant's key, payout or order, in time order; `None` when the
    /// merchant has none such.
    async fn timeline(
        &self,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<Option<Vec<TimelineEntry>>>;
    /// A run with the items `scope` may see, and the status they make.
    async fn run(&self, scope: &Scope, id: &str) -> ConsoleResult<Option<(RunRow, Vec<RunItem>)>>;
    /// Records in the merchant's audit log that `viewer`, support staff, opened `subject` of
    /// the merchant (`support.viewed`); nothing for anyone else.
    async fn support_viewed(
        &self,
        viewer: &CurrentUser,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<()>;
    /// The user's two-step sign-in; an enrolment is begun (its secret made) while it is off.
    async fn security(&self, user: &CurrentUser) -> ConsoleResult<Security>;
    /// The actions an audit log entry can name, for the page's filter.
    fn audit_actions(&self) -> Vec<String>;
    /// The merchant's audit log, newest first, filtered; a refusal names a filter that cannot
    /// be read.
    async fn audit(
        &self,
        merchant_id: &MerchantId,
        filter: &AuditFilter,
        starting_after: Option<String>,
    ) -> ConsoleResult<Result<Page<AuditEntry>, Refusal>>;
}
