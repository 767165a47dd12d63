//! The states the console shows besides a payout's and an order's, each stored and shown as its
//! snake_case name: an idempotency key's [`KeyStatus`], an API key's [`Access`], a webhook
//! endpoint's [`EndpointStatus`] and a delivery's [`DeliveryStatus`], a reconciliation run's
//! [`RunStatus`], its items' [`ItemKind`] and [`ReversalAction`], the engine's [`Verdict`]
//! on a request and a key's [`RecoveryPoint`], a [`PartnerCall`] the payout worker made, and
//! the [`Door`] a request came through.

use serde::{Deserialize, Serialize};

/// Where an idempotency key's record stands: `expired` the TTL after it was made, until it is
/// purged.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum KeyStatus {
    InProgress,
    Completed,
    Failed,
    Expired,
}

status_names!(KeyStatus, "an idempotency key's status", {
    InProgress => "in_progress",
    Completed => "completed",
    Failed => "failed",
    Expired => "expired",
});

/// What a key may do: read only (`GET`), or everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
#[cfg_attr(feature = "openapi", derive(utoipa::ToSchema))]
#[serde(rename_all = "snake_case")]
pub enum Access {
    ReadOnly,
    #[default]
    ReadWrite,
}

status_names!(Access, "an API key's access (read_only or read_write)", {
    ReadOnly => "read_only",
    ReadWrite => "read_write",
});

/// Whether a webhook endpoint is sent events: `disabled` by its merchant, or after it answered
/// `410 Gone`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum EndpointStatus {
    Enabled,
    Disabled,
}

status_names!(EndpointStatus, "a webhook endpoint's status", {
    Enabled => "enabled",
    Disabled => "disabled",
});

/// Where one event's delivery to one endpoint stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DeliveryStatus {
    Pending,
    Delivered,
    Failed,
    Disabled,
}

status_names!(DeliveryStatus, "a delivery's status", {
    Pending => "pending",
    Delivered => "delivered",
    Failed => "failed",
    Disabled => "disabled",
});

/// Where a reconciliation run stands: `partial` while reversals are unfinished, `attention`
/// when it found mismatches.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RunStatus {
    Running,
    Completed,
    Partial,
    Attention,
}

status_names!(RunStatus, "a reconciliation run's status", {
    Running => "running",
    Completed => "completed",
    Partial => "partial",
    Attention => "attention",
});

/// What the idempotency engine made of a request's key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    New,
    Replayed,
    InProgress,
    Mismatch,
}

status_names!(Verdict, "a verdict (new, replayed, in_progress or mismatch)", {
    New => "new",
    Replayed => "replayed",
    InProgress => "in_progress",
    Mismatch => "mismatch",
});

/// What reconciliation found about one transfer or payout of its day.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ItemKind {
    Matched,
    Duplicate,
    Missing,
    Unknown,
    AmountMismatch,
    StatusMismatch,
    /// Money the partner received with a reference that is no merchant's (support staff only).
    UnknownIncoming,
}

status_names!(ItemKind, "a reconciliation item's kind", {
    Matched => "matched",
    Duplicate => "duplicate",
    Missing => "missing",
    Unknown => "unknown",
    AmountMismatch => "amount_mismatch",
    StatusMismatch => "status_mismatch",
    UnknownIncoming => "unknown_incoming",
});

/// What reconciliation did about a duplicate transfer (an item's action), and where the
/// duplicate's reversal stands (`claimed` by a run, `pending` at the partner, ...): one set of
/// words, shown alike.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ReversalAction {
    /// Reversed by this run, or later by the reversal worker.
    Reversed,
    AlreadyReversed,
    /// The partner answered no.
    Refused,
    /// The partner gave no useful answer.
    Failed,
    /// Another run holds its claim.
    InProgress,
    /// A person marked it dealt with.
    Resolved,
    /// It is a payout's own transfer: never reversed.
    NotReversed,
    Claimed,
    Pending,
}

status_names!(ReversalAction, "what reconciliation did about a duplicate", {
    Reversed => "reversed",
    AlreadyReversed => "already_reversed",
    Refused => "refused",
    Failed => "failed",
    InProgress => "in_progress",
    Resolved => "resolved",
    NotReversed => "not_reversed",
    Claimed => "claimed",
    Pending => "pending",
});

/// Which call the payout worker made to the partner bank: the create, a status check, or a
/// listing of a day's transfers (a payout's timeline shows each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum PartnerCall {
    Create,
    Status,
    Listing,
}

status_names!(PartnerCall, "a call to the partner (create, status or listing)", {
    Create => "create",
    Status => "status",
    Listing => "listing",
});

/// How far the work of an idempotency key's request got: `started` until its answer is kept,
/// then `finished`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RecoveryPoint {
    Started,
    Finished,
}

status_names!(RecoveryPoint, "a recovery point (started or finished)", {
    Started => "started",
    Finished => "finished",
});

/// The door a request came through: an API key, or a member in the console.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Door {
    Api,
    Console,
}

status_names!(Door, "a door (api or console)", {
    Api => "api",
    Console => "console",
});
