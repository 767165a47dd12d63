//! What the console's pages and forms need from the backend, with the plain data they show: one
//! trait per area ([`PayoutsConsole`], [`OrdersConsole`], [`RefundsConsole`], [`BalanceConsole`],
//! [`HistoryConsole`], [`IntegrationsConsole`], [`TeamConsole`], [`ReconciliationConsole`],
//! [`MoneyInConsole`]),
//! all of them together the [`Console`] a page takes from its context. Ids and states cross it
//! typed (`kaadxpay_types`); a call answers its value, or a [`ConsoleError`]: refused (what to
//! show beside the form) or failed. The server implements it over the same domain and
//! idempotency engine as the JSON API and puts it into each request's Leptos context.

use chrono::{DateTime, NaiveDate, Utc};
pub use kaadxpay_types::ids::{
    ApiKeyId, AuditEntryId, BalanceTransactionId, EndpointId, EventId, InvitationId, MerchantId,
    OrderId, ParseId, PayoutId, RefundId, RequestId, RunId, UserId,
};
pub use kaadxpay_types::{
    Access, Actor, ActorKind, AuditAction, BalanceTransactionType, Currency, DeliveryStatus, Door,
    EndpointStatus, ErrorCode, EventType, IdempotencyKey, ItemKind, KeyStatus, Moment, Money,
    ObjectRef, ObjectType, OrderStatus, PartnerCall, PayoutStatus, Permission, RecoveryPoint,
    RefundStatus, ReversalAction, Role, RunStatus, Scenario, TransferOf, Verdict,
};

mod balance;
mod forms;
mod history;
mod integrations;
mod money_in;
mod orders;
mod payouts;
mod reconciliation;
mod refunds;
mod team;

pub use balance::*;
pub use forms::*;
pub use history::*;
pub use integrations::*;
pub use money_in::*;
pub use orders::*;
pub use payouts::*;
pub use reconciliation::*;
pub use refunds::*;
pub use team::*;

/// Everything the console's pages need from the backend: every area's trait.
pub trait Console:
    PayoutsConsole
    + OrdersConsole
    + RefundsConsole
    + BalanceConsole
    + HistoryConsole
    + IntegrationsConsole
    + TeamConsole
    + ReconciliationConsole
    + MoneyInConsole
    + 'static
{
}

impl<T> Console for T where
    T: PayoutsConsole
        + OrdersConsole
        + RefundsConsole
        + BalanceConsole
        + HistoryConsole
        + IntegrationsConsole
        + TeamConsole
        + ReconciliationConsole
        + MoneyInConsole
        + 'static
{
}

/// Why a console call gave no value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConsoleError {
    /// A definitive refusal (the API's error code and field), to show beside the form or filter.
    Refused(Refusal),
    /// A failure of the backend; the page says something went wrong, the log says what.
    Failed(String),
}

impl std::fmt::Display for ConsoleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Refused(refusal) => write!(f, "refused: {}", refusal.code),
            Self::Failed(error) => f.write_str(error),
        }
    }
}

impl From<Refusal> for ConsoleError {
    fn from(refusal: Refusal) -> Self {
        Self::Refused(refusal)
    }
}

pub type ConsoleResult<T> = Result<T, ConsoleError>;

/// Who is signed in, put into the request by the server's session layer.
#[derive(Debug, Clone)]
pub struct CurrentUser {
    pub id: UserId,
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
    /// The IANA time zone the user reads times in (`Europe/Berlin`); UTC unless chosen.
    pub time_zone: chrono_tz::Tz,
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
    pub fn merchant(&self) -> Option<&MerchantId> {
        match self {
            Scope::Merchant(merchant_id) => Some(merchant_id),
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
/// A row of a list that pages by id: the next page starts after the last row's [`Listed::Id`].
pub trait Listed {
    type Id: Clone + std::fmt::Debug + std::fmt::Display;
}
/// One page of a list, and the cursor of the next one: the id of its last row.
#[derive(Debug, Clone)]
pub struct Page<T: Listed> {
    pub rows: Vec<T>,
    pub next: Option<T::Id>,
}
impl<T: Listed> Page<T> {
    /// A list with nothing in it.
    pub fn empty() -> Self {
        Self {
            rows: Vec::new(),
            next: None,
        }
    }
}
/// A list page's filters: one of its rows' statuses `S`, if one is chosen, and a range of UTC
/// days, both inclusive, as typed into its form (`YYYY-MM-DD`, each may be empty).
#[derive(Debug, Clone)]
pub struct ListFilter<S> {
    pub status: Option<S>,
    pub from: String,
    pub to: String,
}
