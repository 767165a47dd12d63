//! What the console's forms carry between pages: a form kept with its refusal or repeat, a
//! destructive action to confirm, and what the last action did.

use kaadxpay_types::ErrorCode;

/// Why a form was refused: the error code and the field it names, if any. Pages show a
/// fixed sentence for each code (`components::refusal_sentence`), never text from a URL.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Refusal {
    pub code: ErrorCode,
    pub param: Option<String>,
}

impl Refusal {
    pub fn new(code: ErrorCode) -> Self {
        Self { code, param: None }
    }

    /// The refusal of a form's or an address's field `param`, named as the API names it.
    pub fn invalid(param: &str) -> Self {
        Self {
            code: ErrorCode::InvalidRequest,
            param: Some(param.to_owned()),
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

/// A destructive action to confirm: what it does, and the page it was asked from (to go back
/// to without doing it).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Confirm {
    pub what: Destructive,
    pub back: String,
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

/// What the last action did, for the next page's notice (`role="status"`, API.md §9: every
/// action ends on a page that says what was done): a destructive action once confirmed, or any
/// other change a form made.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Done {
    /// A destructive action, confirmed on its own page first.
    Confirmed(Destructive),
    PayoutCreated,
    RefundCreated,
    PayoutApproved,
    ThresholdSaved,
    ThresholdRemoved,
    OrderCaptured,
    EndpointAdded,
    EndpointDisabled,
    EndpointEnabled,
    TestEventSent,
    DeliveriesRecovered,
    EventRedelivered,
    ReconciliationRun,
    ApiKeyCreated,
    ApiKeyRolled,
    InvitationMailed,
    InvitationAccepted,
    RoleChanged,
    /// The user's time zone (the notice names the one now in use).
    ProfileSaved,
    TwoFactorRequired,
    TwoFactorNotRequired,
}

impl From<Destructive> for Done {
    fn from(what: Destructive) -> Self {
        Done::Confirmed(what)
    }
}

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

/// A one-time notice for the next page, such as a new invitation's link (shown once: only its
/// hash is stored).
#[derive(Debug, Clone)]
pub struct Flash(pub String);
