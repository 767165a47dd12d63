//! What happened: a key's record, timelines, support's search, the request log and the audit log.

use async_trait::async_trait;
use kaadxpay_types::idempotency_key::InvalidKey;

use super::*;

#[derive(Debug, Clone)]
pub struct KeyView {
    pub merchant_id: MerchantId,
    pub key: IdempotencyKey,
    pub status: KeyStatus,
    /// `None` while its request executes in one commit: what it asks is not known till then.
    pub endpoint: Option<KeyedEndpoint>,
    pub request_hash: String,
    pub response_status: Option<u16>,
    /// The resource its request made.
    pub resource: Option<ObjectRef>,
    pub recovery_point: RecoveryPoint,
    /// Why the request failed, as the engine wrote it (a sentence, not a code).
    pub error: Option<String>,
    pub attempts: i32,
    pub created_at: DateTime<Utc>,
    pub updated_at: DateTime<Utc>,
    pub expires_at: DateTime<Utc>,
    pub response_body: Option<String>,
}

/// The method and route template of a command that takes an idempotency key
/// (`POST /v1/payouts`): one of the engine's endpoints, as the server lists them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyedEndpoint(pub &'static str);

#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// Any identifier (exact): a request id, idempotency key (or its prefix), order, payout,
    /// event, delivery or delivery attempt id, partner transfer id, end-to-end key (`kxp-…`) or
    /// merchant id.
    pub text: String,
    /// A key's status; a payout or an order of the same name passes too.
    pub status: Option<KeyStatus>,
    /// `YYYY-MM-DD`, inclusive.
    pub from: String,
    pub to: String,
}

/// A key, payout or order that support's search found, with the page of its timeline.
#[derive(Debug, Clone)]
pub struct SearchHit {
    pub merchant_id: MerchantId,
    pub subject: Subject,
    /// The key's endpoint, or the resource's amount.
    pub detail: String,
    pub status: SubjectStatus,
    pub created_at: DateTime<Utc>,
}

impl SearchHit {
    pub fn href(&self) -> String {
        self.subject.support_href(&self.merchant_id)
    }
}

/// Whose timeline: one of the merchant's keys, payouts or orders.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Subject {
    Key(IdempotencyKey),
    Payout(PayoutId),
    Order(OrderId),
}

/// Where a key, payout or order that support's search found stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectStatus {
    Key(KeyStatus),
    Payout(PayoutStatus),
    Order(OrderStatus),
}

impl SubjectStatus {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Key(status) => status.as_str(),
            Self::Payout(status) => status.as_str(),
            Self::Order(status) => status.as_str(),
        }
    }
}

/// What a timeline is about: a key, a payout or an order, named in addresses `key`, `payout`
/// and `order`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SubjectKind {
    Key,
    Payout,
    Order,
}

impl SubjectKind {
    pub const ALL: [Self; 3] = [Self::Key, Self::Payout, Self::Order];

    /// Its name in an address (`key=`, `payout=`, `order=`).
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Key => "key",
            Self::Payout => "payout",
            Self::Order => "order",
        }
    }
}

/// Why an address names no subject: a key that is no key, or an id not of its kind.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum NoSubject {
    Key(InvalidKey),
    Id(SubjectKind),
}

impl From<InvalidKey> for NoSubject {
    fn from(invalid: InvalidKey) -> Self {
        Self::Key(invalid)
    }
}

impl Subject {
    /// The subject of kind `kind` with key or id `value`; refused when a key's is no key, or an
    /// id is not one of its kind.
    pub fn named(kind: SubjectKind, value: String) -> Result<Self, NoSubject> {
        let id = || NoSubject::Id(kind);
        Ok(match kind {
            SubjectKind::Key => Self::Key(IdempotencyKey::parse(value.as_bytes())?),
            SubjectKind::Payout => Self::Payout(PayoutId::parse(&value).ok_or_else(id)?),
            SubjectKind::Order => Self::Order(OrderId::parse(&value).ok_or_else(id)?),
        })
    }

    /// Its kind and its key or id.
    pub fn parts(&self) -> (SubjectKind, &str) {
        match self {
            Subject::Key(key) => (SubjectKind::Key, key.as_str()),
            Subject::Payout(id) => (SubjectKind::Payout, id),
            Subject::Order(id) => (SubjectKind::Order, id),
        }
    }

    /// The support console's page of this subject's timeline in `merchant_id`'s account.
    pub fn support_href(&self, merchant_id: &MerchantId) -> String {
        let (kind, value) = self.parts();
        let name = kind.as_str();
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
    /// Set on a partner event about a transfer that is not its payout's own: a duplicate.
    pub duplicate: Option<Duplicate>,
}

/// A transfer the partner made twice for one payout (its event on the payout's timeline): where
/// reconciliation, which reverses every duplicate, stands with it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Duplicate {
    /// Not reversed yet (not found yet, being reversed, or refused and retried).
    ToReverse,
    Reversed,
    /// Marked resolved by a person.
    Resolved,
}

/// The request log's filters on `/requests`, as typed into its form (each may be empty or
/// none).
#[derive(Debug, Clone, Default)]
pub struct RequestFilters {
    pub idempotency_key: String,
    /// An HTTP status code, 100 to 599.
    pub status: Option<u16>,
    /// A route template with its method, e.g. `POST /v1/orders`.
    pub route: String,
    pub verdict: Option<Verdict>,
    /// `YYYY-MM-DD`, inclusive, UTC; ignored by exact look-ups (a key or a request id).
    pub from: String,
    pub to: String,
    /// A request id, or the id the client sent, or part of one.
    pub search: String,
    /// Made with an API key, or by a member in the console.
    pub door: Option<Door>,
}

/// One logged request, redacted as it was stored.
#[derive(Debug, Clone)]
pub struct RequestView {
    pub id: RequestId,
    pub at: DateTime<Utc>,
    pub route: String,
    pub path: String,
    pub idempotency_key: Option<String>,
    pub verdict: Option<Verdict>,
    pub status: i16,
    pub error_code: Option<ErrorCode>,
    pub latency_ms: f64,
    pub api_key_id: Option<ApiKeyId>,
    pub user: Option<String>,
    pub client_address: Option<String>,
    pub request_body: Option<String>,
    pub response_body: Option<String>,
    pub client_request_id: Option<String>,
}

impl Listed for RequestView {
    type Id = RequestId;
}

/// The audit log page's filters, from its address: an action and a range of days
/// (`YYYY-MM-DD`, inclusive); none or empty for all.
#[derive(Debug, Clone, Default)]
pub struct AuditFilter {
    pub action: Option<AuditAction>,
    pub from: String,
    pub to: String,
}

/// An audit log entry as the page shows it.
#[derive(Debug, Clone)]
pub struct AuditEntry {
    pub id: AuditEntryId,
    pub at: DateTime<Utc>,
    pub actor: Actor,
    pub action: AuditAction,
    pub object: ObjectRef,
    pub address: Option<String>,
    /// The object before and after, as compact JSON.
    pub before: Option<String>,
    pub after: Option<String>,
}

impl Listed for AuditEntry {
    type Id = AuditEntryId;
}

/// What happened: a key's record, timelines, support's search, the request log and the audit log.
#[async_trait]
pub trait HistoryConsole: Send + Sync {
    async fn key(
        &self,
        merchant_id: &MerchantId,
        key: &IdempotencyKey,
    ) -> ConsoleResult<Option<KeyView>>;
    /// Support's search across merchants; read only.
    async fn search(&self, query: &SearchQuery) -> ConsoleResult<Vec<SearchHit>>;
    /// What happened to the merchant's key, payout or order, in time order; `None` when the
    /// merchant has none such.
    async fn timeline(
        &self,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<Option<Vec<TimelineEntry>>>;
    /// Records in the merchant's audit log that `viewer`, support staff, opened `subject` of
    /// the merchant (`support.viewed`); nothing for anyone else.
    async fn support_viewed(
        &self,
        viewer: &CurrentUser,
        merchant_id: &MerchantId,
        subject: &Subject,
    ) -> ConsoleResult<()>;
    /// The merchant's request log, newest first, filtered; a refusal names a filter that
    /// cannot be read.
    async fn requests(
        &self,
        merchant_id: &MerchantId,
        filters: &RequestFilters,
        starting_after: Option<RequestId>,
    ) -> ConsoleResult<Page<RequestView>>;
    async fn request(
        &self,
        merchant_id: &MerchantId,
        id: &RequestId,
    ) -> ConsoleResult<Option<RequestView>>;
    /// The merchant's audit log, newest first, filtered; a refusal names a filter that cannot
    /// be read.
    async fn audit(
        &self,
        merchant_id: &MerchantId,
        filter: &AuditFilter,
        starting_after: Option<AuditEntryId>,
    ) -> ConsoleResult<Page<AuditEntry>>;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_names_a_subject_only_with_a_key_or_an_id_of_its_kind() {
        let named = |kind, value: &str| Subject::named(kind, value.to_owned());
        assert_eq!(
            named(SubjectKind::Payout, "po_1"),
            Ok(Subject::Payout(PayoutId::from("po_1")))
        );
        assert_eq!(
            named(SubjectKind::Payout, "ord_1"),
            Err(NoSubject::Id(SubjectKind::Payout))
        );
        assert_eq!(
            named(SubjectKind::Order, "po_1"),
            Err(NoSubject::Id(SubjectKind::Order))
        );
        assert!(matches!(
            named(SubjectKind::Key, "two words"),
            Err(NoSubject::Key(_))
        ));
        assert!(named(SubjectKind::Key, "a-key").is_ok());
    }
}
