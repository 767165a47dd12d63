# Generated from the OpenAPI document by sdk/regenerate: do not edit.

from __future__ import annotations

from datetime import date as date_aliased
from typing import Annotated, Literal
from uuid import UUID

from kaadxpay._object import KaadxpayObject
from pydantic import AnyUrl, AwareDatetime, ConfigDict, Field
from typing_extensions import TypeAliasType

Access = TypeAliasType(
    "Access",
    Annotated[
        Literal["read_only", "read_write"],
        Field(
            ...,
            description="What a key may do: read only (`GET`), or everything.",
            title="Access",
        ),
    ],
)


AccountHolder = TypeAliasType(
    "AccountHolder",
    Annotated[
        str,
        Field(
            ...,
            examples=["Ada Lovelace"],
            max_length=140,
            min_length=1,
            pattern="^\\s*\\S(.*\\S)?\\s*$",
            title="AccountHolder",
        ),
    ],
)


Amount = TypeAliasType(
    "Amount",
    Annotated[
        int,
        Field(
            ...,
            description="In minor units (cents).",
            examples=[1000],
            ge=1,
            le=100000000000,
            title="Amount",
        ),
    ],
)


class ApiKey(KaadxpayObject):
    access: Access
    created_at: AwareDatetime
    created_by: str | None = Field(
        ...,
        description="The email of the member it acts for (who made it, in the console or with a key of\ntheirs), whose role bounds it at each use; `null` for a key made for the merchant.",
    )
    created_by_key: str | None = Field(
        ...,
        description="The key that made it (or rolled the key it succeeds), `key_…`; `null` when a member did.",
    )
    expires_at: AwareDatetime | None = Field(
        ...,
        description="When it stops (or stopped) working: set by a roll or a revocation.",
    )
    id: str = Field(..., description="`key_…`", pattern="^key_[0-9A-Za-z]+$")
    last_used_at: AwareDatetime | None = Field(
        ..., description="When it was last used, to the minute."
    )
    name: str
    object: Literal["api_key"] = Field(..., description="Always `api_key`.")
    prefix: str = Field(
        ...,
        description="The secret's first 12 characters, for recognition (`sk_test_` alone for a key made\nbefore keys had names, until its first use: its secret was never stored).",
    )
    secret: str | None = Field(
        ...,
        description="The secret, in the answer that created the key only; `null` everywhere else.",
    )


class Attempt(KaadxpayObject):
    at: AwareDatetime
    delivery_id: str = Field(
        ..., description="The `kaadxpay-delivery-id` header this attempt carried."
    )
    error: str | None
    latency_ms: int
    status_code: int | None = Field(
        ...,
        description="The endpoint's HTTP status; none when no answer came (timeout, refused connection).",
    )


Currency = TypeAliasType(
    "Currency",
    Annotated[
        Literal["AUD", "BRL", "CAD", "CHF", "CNY", "DKK", "EUR", "GBP", "HKD", "INR", "JPY", "MXN", "NOK", "NZD", "PLN", "SEK", "SGD", "USD"],
        Field(
            ...,
            description="An upper-case ISO 4217 code that we settle.",
            examples=["EUR"],
            title="Currency",
        ),
    ],
)


class Deleted(KaadxpayObject):
    deleted: bool
    id: str = Field(..., pattern="^whe_[0-9A-Za-z]+$")
    object: Literal["webhook_endpoint"] = Field(
        ..., description="Always `webhook_endpoint`."
    )


class Delivery(KaadxpayObject):
    attempt_count: int
    attempts: list[Attempt]
    endpoint_id: str
    id: str
    next_attempt_at: AwareDatetime | None = Field(
        ..., description="When the next attempt is due, while `pending`."
    )
    status: Literal["pending", "delivered", "failed", "disabled"] = Field(
        ...,
        description="`pending`, `delivered`, `failed` (retries exhausted) or `disabled` (endpoint gone).",
    )
    url: str


Description = TypeAliasType(
    "Description",
    Annotated[
        str,
        Field(
            ...,
            examples=["Blue shoes"],
            max_length=1000,
            min_length=0,
            title="Description",
        ),
    ],
)


class EntryRequest(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    error_code: str | None
    latency_ms: float
    moment: Literal["request"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )
    route: str
    status: int = Field(..., ge=0)
    verdict: str | None


class EntryRecordStored(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    endpoint: str
    moment: Literal["record_stored"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )


class EntryRecordChanged(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    error: str | None
    moment: Literal["record_changed"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )
    status: str


class EntryPayoutCreated(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    amount: int
    at: AwareDatetime
    currency: str
    moment: Literal["payout_created"]
    partner_key: str
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )


class EntryOrderCreated(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    amount: int
    at: AwareDatetime
    currency: str
    moment: Literal["order_created"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )


class EntryPartnerCall(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    answer: str
    at: AwareDatetime
    call: str
    latency_ms: int
    moment: Literal["partner_call"]
    partner_key: str
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )


class EntryPartnerWebhook(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    event_type: str
    moment: Literal["partner_webhook"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )
    transfer_id: str


class EntryReconciliation(KaadxpayObject):
    action: str | None
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    item: str
    moment: Literal["reconciliation"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )
    run_date: date_aliased
    transfer_id: str | None


class EntryReversal(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    moment: Literal["reversal"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )
    state: str
    transfer_id: str


class EntryEventSent(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    event_type: str
    moment: Literal["event_sent"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )


class EntryDelivery(KaadxpayObject):
    after_ms: int = Field(
        ..., description="Milliseconds since the entry before it (0 for the first)."
    )
    at: AwareDatetime
    error: str | None
    event_type: str
    latency_ms: int
    moment: Literal["delivery"]
    reference: str | None = Field(
        ...,
        description="The id of what it names (a request, event, delivery attempt, transfer or run), if any.",
    )
    status_code: int | None = Field(..., ge=0)
    url: str


Entry = TypeAliasType(
    "Entry",
    Annotated[
        EntryRequest | EntryRecordStored | EntryRecordChanged | EntryPayoutCreated | EntryOrderCreated | EntryPartnerCall | EntryPartnerWebhook | EntryReconciliation | EntryReversal | EntryEventSent | EntryDelivery,
        Field(..., description="One thing that happened.", title="Entry"),
    ],
)


class Error400Detail(KaadxpayObject):
    code: Literal["invalid_request", "idempotency_key_missing", "idempotency_key_invalid"] = (
        Field(
            ...,
            description="Stable and machine-readable (docs/api.md lists every code).",
        )
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error400(KaadxpayObject):
    error: Error400Detail = Field(..., title="Error400Detail")


class Error401Detail(KaadxpayObject):
    code: Literal["unauthorized", "invalid_signature"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error401(KaadxpayObject):
    error: Error401Detail = Field(..., title="Error401Detail")


class Error402Detail(KaadxpayObject):
    code: Literal["insufficient_funds"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error402(KaadxpayObject):
    error: Error402Detail = Field(..., title="Error402Detail")


class Error403Detail(KaadxpayObject):
    code: Literal["forbidden"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error403(KaadxpayObject):
    error: Error403Detail = Field(..., title="Error403Detail")


class Error404Detail(KaadxpayObject):
    code: Literal["resource_missing"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error404(KaadxpayObject):
    error: Error404Detail = Field(..., title="Error404Detail")


class Error408Detail(KaadxpayObject):
    code: Literal["request_timeout"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error408(KaadxpayObject):
    error: Error408Detail = Field(..., title="Error408Detail")


class Error409Detail(KaadxpayObject):
    code: Literal["idempotency_request_in_progress", "invalid_state_transition", "amount_exceeds_refundable"] = (
        Field(
            ...,
            description="Stable and machine-readable (docs/api.md lists every code).",
        )
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error409(KaadxpayObject):
    error: Error409Detail = Field(..., title="Error409Detail")


class Error413Detail(KaadxpayObject):
    code: Literal["request_too_large"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error413(KaadxpayObject):
    error: Error413Detail = Field(..., title="Error413Detail")


class Error422Detail(KaadxpayObject):
    code: Literal["idempotency_key_reused"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error422(KaadxpayObject):
    error: Error422Detail = Field(..., title="Error422Detail")


class Error500Detail(KaadxpayObject):
    code: Literal["internal_error"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error500(KaadxpayObject):
    error: Error500Detail = Field(..., title="Error500Detail")


class Error503Detail(KaadxpayObject):
    code: Literal["service_unavailable"] = Field(
        ..., description="Stable and machine-readable (docs/api.md lists every code)."
    )
    message: str = Field(..., description="A sentence for people; it may change.")
    param: str | None = Field(
        None,
        description="The request field at fault, as the API spells it (`destination[iban]`); only when there is one.",
    )


class Error503(KaadxpayObject):
    error: Error503Detail = Field(..., title="Error503Detail")


EventType = TypeAliasType(
    "EventType",
    Annotated[
        Literal["order.created", "order.captured", "order.cancelled", "payout.created", "payout.in_transit", "payout.paid", "payout.failed", "payout.reversed", "payout.pending_approval", "payout.approved", "payout.rejected", "payout.cancelled", "refund.created", "refund.succeeded", "refund.failed", "top_up.received"],
        Field(..., title="EventType"),
    ],
)


class FundingAccount(KaadxpayObject):
    account_holder: str
    iban: str = Field(..., description="The account to send the money to.")
    object: Literal["funding_account"] = Field(
        ..., description="Always `funding_account`."
    )
    reference: str = Field(
        ...,
        description="What the transfer must carry as its reference: this merchant's alone.",
    )


Iban = TypeAliasType(
    "Iban",
    Annotated[
        str,
        Field(
            ...,
            examples=["DE89370400440532013000", "DE89 3704 0044 0532 0130 00"],
            pattern="^( *[A-Z]){2}( *[0-9]){2}( *[A-Za-z0-9]){11,30} *$",
            title="Iban",
        ),
    ],
)


class Item(KaadxpayObject):
    action: str | None = Field(
        ...,
        description="For a duplicate: `reversed` (by this run, or later by the reversal worker),\n`already_reversed`, `refused` by the partner, `failed` when the partner gave no useful\nanswer (both retried with back-off until done), `in_progress` in another run,\n`resolved` by a person, `not_reversed` (it is a payout's own transfer), or null when not\napplied.",
    )
    amount: int | None
    currency: str | None
    detail: str | None = Field(
        ...,
        description="Why a reversal was not made: the partner's code when it answered one\n(`not_reversible`), else what went wrong (`timeout`, `connection`, `server_error`, ...).\nFor an `unknown_incoming`: the reference the sender wrote.",
    )
    kind: str = Field(
        ...,
        description="`matched`, `duplicate`, `missing`, `unknown`, `amount_mismatch` or `status_mismatch`\n(the payout's status contradicts its own transfer's at the partner: for a person), or\n`unknown_incoming` (money received with a reference that is no merchant's: support staff\nonly; `transfer_id` is the partner's `in_…`).",
    )
    payout_id: str | None
    transfer_id: str | None


class ItemSource(KaadxpayObject):
    id: str
    type: str = Field(
        ...,
        description="`order`, `payout`, `refund`, `top_up` or `reversal` (the partner returned the transfer\nof the payout or refund `id`).",
    )


KeyName = TypeAliasType(
    "KeyName",
    Annotated[
        str,
        Field(
            ...,
            examples=["Checkout server"],
            max_length=100,
            min_length=1,
            pattern="^\\s*\\S(.*\\S)?\\s*$",
            title="KeyName",
        ),
    ],
)


KeyOverlap = TypeAliasType(
    "KeyOverlap",
    Annotated[
        Literal["now", "1h", "24h", "7d"],
        Field(
            ...,
            description="How long a rolled key keeps working beside its successor.",
            title="KeyOverlap",
        ),
    ],
)


class ListApiKey(KaadxpayObject):
    data: list[ApiKey]
    has_more: bool


class LoggedRequest(KaadxpayObject):
    api_key_id: str | None = Field(
        ..., description="The API key's visible prefix (its first 12 characters)."
    )
    client_address: str | None
    client_request_id: str | None = Field(
        ..., description="The `X-Request-Id` the client sent, if any."
    )
    created_at: AwareDatetime
    error_code: str | None = Field(
        ..., description="The error's `code` when the answer was an error."
    )
    id: str = Field(
        ...,
        description="The server's own id for the request, sent in its answer's `X-Request-Id`.",
        examples=["req_6f1Xb2kQ9mZ3pL8sT0vW4yA7"],
        pattern="^req_[0-9A-Za-z]+$",
    )
    idempotency_key: str | None
    latency_ms: float
    method: str
    object: Literal["request"] = Field(..., description="Always `request`.")
    path: str = Field(..., description="The path and query string, redacted.")
    request_body: str | None = Field(
        ...,
        description="The first 8 KiB, with secrets replaced and IBANs masked but their last 4.",
    )
    response_body: str | None = Field(
        ...,
        description="The first 8 KiB, with secrets replaced and IBANs masked but their last 4.",
    )
    route: str = Field(
        ...,
        description="The route template with its method.",
        examples=["POST /v1/orders"],
    )
    status: int
    user: str | None = Field(..., description="The console user, for a console action.")
    verdict: str | None = Field(
        ...,
        description="The engine's verdict on the key (`new`, `replayed`, `in_progress`, `mismatch`), null\nfor requests that did not pass through it.",
    )


Metadata1 = TypeAliasType(
    "Metadata1",
    Annotated[str, Field(..., examples=["B-42"], max_length=500, min_length=0)],
)


Metadata = TypeAliasType(
    "Metadata",
    Annotated[
        dict[Annotated[str, Field(max_length=40)], Metadata1],
        Field(..., examples=[{"sku": "B-42"}], max_length=20, title="Metadata"),
    ],
)


class NewKey(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    access: Access | None = Field(
        None, description="`read_write` unless said otherwise."
    )
    name: KeyName


class NoParameters(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )


OrderStatus = TypeAliasType(
    "OrderStatus",
    Annotated[
        Literal["pending", "captured", "cancelled"], Field(..., title="OrderStatus")
    ],
)


PayoutStatus = TypeAliasType(
    "PayoutStatus",
    Annotated[
        Literal["pending_approval", "rejected", "cancelled", "pending", "in_transit", "paid", "failed", "reversed"],
        Field(..., title="PayoutStatus"),
    ],
)


Reason = TypeAliasType(
    "Reason",
    Annotated[
        Literal["requested_by_customer", "duplicate", "fraudulent"],
        Field(
            ...,
            description="Why a refund is made, when the merchant says.",
            title="Reason",
        ),
    ],
)


class RecoverBody(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    since: AwareDatetime = Field(
        ...,
        description="RFC 3339: deliveries whose last attempt was at or after this instant are recovered.",
    )


class Recovery(KaadxpayObject):
    object: Literal["recovery"] = Field(..., description="Always `recovery`.")
    queued: int = Field(..., description="How many new deliveries were queued.", ge=0)


RefundReason = TypeAliasType(
    "RefundReason", Annotated[Reason | None, Field(..., title="RefundReason")]
)


RefundParametersAmount = TypeAliasType(
    "RefundParametersAmount",
    Annotated[
        Amount | None, Field(..., title="RefundParametersAmount")
    ],
)


RefundParametersDescription = TypeAliasType(
    "RefundParametersDescription",
    Annotated[
        Description | None, Field(..., title="RefundParametersDescription")
    ],
)


RefundParametersReason = TypeAliasType(
    "RefundParametersReason",
    Annotated[
        Reason | None, Field(..., title="RefundParametersReason")
    ],
)


RefundStatus = TypeAliasType(
    "RefundStatus",
    Annotated[
        Literal["pending", "in_transit", "succeeded", "failed"],
        Field(..., title="RefundStatus"),
    ],
)


class ResourceLink(KaadxpayObject):
    id: str
    type: str


class RollParameters(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    overlap: KeyOverlap


class RunWithItems(KaadxpayObject):
    applied: bool
    created_at: AwareDatetime
    date: date_aliased
    id: str = Field(..., pattern="^rec_[0-9A-Za-z]+$")
    items: list[Item]
    object: Literal["reconciliation_run"] = Field(
        ..., description="Always `reconciliation_run`."
    )
    status: Literal["running", "completed", "partial", "attention"] = Field(
        ...,
        description="`running`, `completed`, `partial` (a reversal is still unfinished) or `attention` (a `status_mismatch` needs a person).",
    )


SecretOverlap = TypeAliasType(
    "SecretOverlap",
    Annotated[
        str,
        Field(
            ...,
            description="`now`, or a whole number of seconds, minutes, hours or days from `0s` to `7d`, such as `24h` or `90m`.",
            examples=["24h"],
            pattern="^(now|(0|[1-9][0-9]{0,4}|[1-5][0-9]{5}|60[0-3][0-9]{3}|604[0-7][0-9]{2}|604800)s|(0|[1-9][0-9]{0,3}|100[0-7][0-9]|10080)m|(0|[1-9][0-9]?|1[0-5][0-9]|16[0-8])h|[0-7]d)$",
            title="SecretOverlap",
        ),
    ],
)


class SendTestEventBody(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    event_type: EventType


class StoredRun(KaadxpayObject):
    applied: bool
    created_at: AwareDatetime
    date: date_aliased
    id: str = Field(..., pattern="^rec_[0-9A-Za-z]+$")
    object: Literal["reconciliation_run"] = Field(
        ..., description="Always `reconciliation_run`."
    )
    status: Literal["running", "completed", "partial", "attention"] = Field(
        ...,
        description="`running`, `completed`, `partial` (a reversal is still unfinished) or `attention` (a `status_mismatch` needs a person).",
    )


Subscriptions = TypeAliasType(
    "Subscriptions",
    Annotated[
        list[Literal["*", "order.created", "order.captured", "order.cancelled", "payout.created", "payout.in_transit", "payout.paid", "payout.failed", "payout.reversed", "payout.pending_approval", "payout.approved", "payout.rejected", "payout.cancelled", "refund.created", "refund.succeeded", "refund.failed", "top_up.received"]],
        Field(..., min_length=1, title="Subscriptions"),
    ],
)


Target = TypeAliasType(
    "Target",
    Annotated[
        Literal["captured", "cancelled"],
        Field(
            ...,
            description="The states an order can be asked to move to.",
            title="Target",
        ),
    ],
)


class TopUp(KaadxpayObject):
    amount: int = Field(..., description="In minor units: what `available` grew by.")
    created_at: AwareDatetime
    currency: Currency
    id: str = Field(..., pattern="^tu_[0-9A-Za-z]+$")
    object: Literal["top_up"] = Field(..., description="Always `top_up`.")
    partner_incoming_id: str = Field(
        ...,
        description="The partner's incoming transfer (`in_…`) it credits; each is credited once.",
    )


class TopUpReceivedEventData(KaadxpayObject):
    object: TopUp


class TopUpReceivedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: TopUpReceivedEventData = Field(..., title="TopUpReceivedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["top_up.received"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


UpdateEndpointEvents = TypeAliasType(
    "UpdateEndpointEvents",
    Annotated[
        Subscriptions | None, Field(..., title="UpdateEndpointEvents")
    ],
)


class UpdateOrder(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    status: Target


WebhookUrl = TypeAliasType(
    "WebhookUrl",
    Annotated[
        AnyUrl,
        Field(..., examples=["https://example.com/webhooks"], title="WebhookUrl"),
    ],
)


class Available(KaadxpayObject):
    amount: int
    currency: Currency


class Balance(KaadxpayObject):
    available: list[Available] = Field(
        ...,
        description="What may be paid out or refunded, per currency the merchant has had money in.",
    )
    object: Literal["balance"] = Field(..., description="Always `balance`.")
    reserved: list[Available] = Field(
        ...,
        description="What payouts awaiting approval hold back, in the same currencies.",
    )


class BalanceTransaction(KaadxpayObject):
    amount: int = Field(
        ..., description="Signed minor units: what `available` changed by."
    )
    balance_after: int = Field(
        ..., description="The `available` balance in this currency after it."
    )
    created_at: AwareDatetime
    currency: Currency
    id: str = Field(..., description="`btx_…`.", pattern="^btx_[0-9A-Za-z]+$")
    object: Literal["balance_transaction"] = Field(
        ..., description="Always `balance_transaction`."
    )
    source: ItemSource
    type: str = Field(
        ...,
        description="`order_captured`, `payout`, `payout_returned`, `refund`, `refund_returned`, `top_up`,\n`reservation` or `reservation_released`.",
    )


class BankAccount(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    account_holder: AccountHolder
    iban: Iban


CreateEndpointEvents = TypeAliasType(
    "CreateEndpointEvents",
    Annotated[
        Subscriptions | None, Field(..., title="CreateEndpointEvents")
    ],
)


class CreateEndpoint(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    events: CreateEndpointEvents | None = Field(None, title="CreateEndpointEvents")
    url: WebhookUrl


CreateOrderDescription = TypeAliasType(
    "CreateOrderDescription",
    Annotated[
        Description | None, Field(..., title="CreateOrderDescription")
    ],
)


CreateOrderMetadata = TypeAliasType(
    "CreateOrderMetadata",
    Annotated[
        Metadata | None, Field(..., title="CreateOrderMetadata")
    ],
)


class CreateOrder(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: Amount
    currency: Currency
    description: CreateOrderDescription | None = Field(
        None, title="CreateOrderDescription"
    )
    metadata: CreateOrderMetadata | None = Field(None, title="CreateOrderMetadata")


CreatePayoutDescription = TypeAliasType(
    "CreatePayoutDescription",
    Annotated[
        Description | None, Field(..., title="CreatePayoutDescription")
    ],
)


class CreatePayout(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: Amount
    currency: Currency
    description: CreatePayoutDescription | None = Field(
        None, title="CreatePayoutDescription"
    )
    destination: BankAccount


class Endpoint(KaadxpayObject):
    created_at: AwareDatetime
    disabled_at: AwareDatetime | None
    events: Subscriptions = Field(
        ..., description="Event types it receives; `*` is all of them."
    )
    id: str = Field(..., pattern="^whe_[0-9A-Za-z]+$")
    object: Literal["webhook_endpoint"] = Field(
        ..., description="Always `webhook_endpoint`."
    )
    previous_secret_expires_at: AwareDatetime | None = Field(
        ...,
        description="Until when deliveries are also signed with the secret before the last rotation; `null`\nuntil the first rotation.",
    )
    status: Literal["enabled", "disabled"] = Field(
        ...,
        description="`enabled`, or `disabled` (by `PATCH` or after it answered `410 Gone`).",
    )
    url: str


class EndpointWithSecret(KaadxpayObject):
    created_at: AwareDatetime
    disabled_at: AwareDatetime | None
    events: Subscriptions = Field(
        ..., description="Event types it receives; `*` is all of them."
    )
    id: str = Field(..., pattern="^whe_[0-9A-Za-z]+$")
    object: Literal["webhook_endpoint"] = Field(
        ..., description="Always `webhook_endpoint`."
    )
    previous_secret_expires_at: AwareDatetime | None = Field(
        ...,
        description="Until when deliveries are also signed with the secret before the last rotation; `null`\nuntil the first rotation.",
    )
    secret: str = Field(
        ...,
        description="The signing secret, in the answer to its creation or rotation only.",
    )
    status: Literal["enabled", "disabled"] = Field(
        ...,
        description="`enabled`, or `disabled` (by `PATCH` or after it answered `410 Gone`).",
    )
    url: str


KeyRecordResource = TypeAliasType(
    "KeyRecordResource",
    Annotated[
        ResourceLink | None, Field(..., title="KeyRecordResource")
    ],
)


class KeyRecord(KaadxpayObject):
    attempts: int
    created_at: AwareDatetime
    endpoint: str
    error: str | None
    expires_at: AwareDatetime
    key: str
    object: Literal["idempotency_key"] = Field(
        ..., description="Always `idempotency_key`."
    )
    recovery_point: str
    request_hash: str
    resource: KeyRecordResource | None = Field(..., title="KeyRecordResource")
    response_status: int | None = Field(..., ge=0)
    status: Literal["in_progress", "completed", "failed", "expired"] = Field(
        ..., description="`in_progress`, `completed`, `failed` or `expired`."
    )
    updated_at: AwareDatetime


class KeyWithTimeline(KeyRecord):
    timeline: list[Entry]


class ListBalanceTransaction(KaadxpayObject):
    data: list[BalanceTransaction]
    has_more: bool


class ListEndpoint(KaadxpayObject):
    data: list[Endpoint]
    has_more: bool


class ListLoggedRequest(KaadxpayObject):
    data: list[LoggedRequest]
    has_more: bool


class ListStoredRun(KaadxpayObject):
    data: list[StoredRun]
    has_more: bool


class ListTopUp(KaadxpayObject):
    data: list[TopUp]
    has_more: bool


class Order(KaadxpayObject):
    amount: int
    amount_refunded: int = Field(
        ...,
        description="How much of it refunds that did not fail took back (minor units, `0` to `amount`).",
    )
    created_at: AwareDatetime
    currency: Currency
    description: str | None
    id: str = Field(..., pattern="^ord_[0-9A-Za-z]+$")
    metadata: dict[str, str]
    object: Literal["order"] = Field(..., description="Always `order`.")
    status: OrderStatus
    updated_at: AwareDatetime


class OrderCancelledEventData(KaadxpayObject):
    object: Order


class OrderCancelledEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: OrderCancelledEventData = Field(..., title="OrderCancelledEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["order.cancelled"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class OrderCapturedEventData(KaadxpayObject):
    object: Order


class OrderCapturedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: OrderCapturedEventData = Field(..., title="OrderCapturedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["order.captured"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class OrderCreatedEventData(KaadxpayObject):
    object: Order


class OrderCreatedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: OrderCreatedEventData = Field(..., title="OrderCreatedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["order.created"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class Payout(KaadxpayObject):
    amount: int
    created_at: AwareDatetime
    currency: Currency
    description: str | None
    destination: BankAccount
    duplicates_reversed: int = Field(
        ...,
        description="How many duplicate transfers of this payout reconciliation reversed (the payout itself\nstays `paid`).",
    )
    failure_code: str | None
    id: str = Field(..., pattern="^po_[0-9A-Za-z]+$")
    idempotency_key: str
    object: Literal["payout"] = Field(..., description="Always `payout`.")
    partner_transfer_id: str | None
    status: PayoutStatus
    updated_at: AwareDatetime


class PayoutApprovedEventData(KaadxpayObject):
    object: Payout


class PayoutApprovedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutApprovedEventData = Field(..., title="PayoutApprovedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.approved"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutCancelledEventData(KaadxpayObject):
    object: Payout


class PayoutCancelledEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutCancelledEventData = Field(..., title="PayoutCancelledEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.cancelled"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutCreatedEventData(KaadxpayObject):
    object: Payout


class PayoutCreatedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutCreatedEventData = Field(..., title="PayoutCreatedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.created"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutFailedEventData(KaadxpayObject):
    object: Payout


class PayoutFailedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutFailedEventData = Field(..., title="PayoutFailedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.failed"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutInTransitEventData(KaadxpayObject):
    object: Payout


class PayoutInTransitEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutInTransitEventData = Field(..., title="PayoutInTransitEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.in_transit"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutPaidEventData(KaadxpayObject):
    object: Payout


class PayoutPaidEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutPaidEventData = Field(..., title="PayoutPaidEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.paid"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutPendingApprovalEventData(KaadxpayObject):
    object: Payout


class PayoutPendingApprovalEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutPendingApprovalEventData = Field(
        ..., title="PayoutPendingApprovalEventData"
    )
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.pending_approval"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutRejectedEventData(KaadxpayObject):
    object: Payout


class PayoutRejectedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutRejectedEventData = Field(..., title="PayoutRejectedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.rejected"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class PayoutReversedEventData(KaadxpayObject):
    object: Payout


class PayoutReversedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: PayoutReversedEventData = Field(..., title="PayoutReversedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["payout.reversed"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class Refund(KaadxpayObject):
    amount: int
    created_at: AwareDatetime
    currency: Currency
    description: str | None
    destination: BankAccount
    failure_code: str | None = Field(
        ...,
        description="Why it failed (`partner_failed`, `partner_reversed`, or the partner's refusal code).",
    )
    id: str = Field(..., pattern="^re_[0-9A-Za-z]+$")
    idempotency_key: str
    object: Literal["refund"] = Field(..., description="Always `refund`.")
    order: str = Field(
        ..., description="The order refunded (`ord_…`).", pattern="^ord_[0-9A-Za-z]+$"
    )
    reason: RefundReason | None = Field(..., title="RefundReason")
    status: RefundStatus
    updated_at: AwareDatetime


class RefundCreatedEventData(KaadxpayObject):
    object: Refund


class RefundCreatedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: RefundCreatedEventData = Field(..., title="RefundCreatedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["refund.created"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class RefundFailedEventData(KaadxpayObject):
    object: Refund


class RefundFailedEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: RefundFailedEventData = Field(..., title="RefundFailedEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["refund.failed"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


class RefundParameters(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    amount: RefundParametersAmount | None = Field(None, title="RefundParametersAmount")
    description: RefundParametersDescription | None = Field(
        None, title="RefundParametersDescription"
    )
    destination: BankAccount = Field(
        ..., description="The customer's account the money goes back to."
    )
    reason: RefundParametersReason | None = Field(None, title="RefundParametersReason")


class RefundSucceededEventData(KaadxpayObject):
    object: Refund


class RefundSucceededEvent(KaadxpayObject):
    created_at: AwareDatetime
    data: RefundSucceededEventData = Field(..., title="RefundSucceededEventData")
    event_id: UUID = Field(
        ...,
        description="The event's id; also the `webhook-id` header. Deduplicate on it.",
    )
    event_type: Literal["refund.succeeded"]
    test: bool | None = Field(
        None,
        description="Present and `true` on a test event, whose data is made up; absent otherwise.",
    )


ReportedObject = TypeAliasType(
    "ReportedObject",
    Annotated[
        Order | Payout | Refund | TopUp, Field(..., title="ReportedObject")
    ],
)


class RotateSecretBody(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    overlap: SecretOverlap


UpdateEndpointUrl = TypeAliasType(
    "UpdateEndpointUrl",
    Annotated[
        WebhookUrl | None, Field(..., title="UpdateEndpointUrl")
    ],
)


class UpdateEndpoint(KaadxpayObject):
    model_config = ConfigDict(
        extra="forbid",
    )
    disabled: bool | None = Field(
        None,
        description="`true` stops deliveries to it (its pending ones too); `false` enables it again.",
    )
    events: UpdateEndpointEvents | None = Field(None, title="UpdateEndpointEvents")
    url: UpdateEndpointUrl | None = Field(None, title="UpdateEndpointUrl")


class EventData(KaadxpayObject):
    object: ReportedObject


class EventWithDeliveries(KaadxpayObject):
    created_at: AwareDatetime
    data: EventData = Field(
        ..., description='`{"object": {...}}`, as in the body sent to endpoints.'
    )
    deliveries: list[Delivery] = Field(
        ..., description="In `GET /v1/events/{event_id}` only."
    )
    event_type: EventType
    id: UUID
    object: Literal["event"] = Field(..., description="Always `event`.")
    test: bool = Field(
        ...,
        description="`true` for a test event (`POST /v1/webhook-endpoints/{id}/test`), whose data is made up.",
    )


class ListOrder(KaadxpayObject):
    data: list[Order]
    has_more: bool


class ListPayout(KaadxpayObject):
    data: list[Payout]
    has_more: bool


class ListRefund(KaadxpayObject):
    data: list[Refund]
    has_more: bool


class Event(KaadxpayObject):
    created_at: AwareDatetime
    data: EventData = Field(
        ..., description='`{"object": {...}}`, as in the body sent to endpoints.'
    )
    event_type: EventType
    id: UUID
    object: Literal["event"] = Field(..., description="Always `event`.")
    test: bool = Field(
        ...,
        description="`true` for a test event (`POST /v1/webhook-endpoints/{id}/test`), whose data is made up.",
    )


class ListEvent(KaadxpayObject):
    data: list[Event]
    has_more: bool

# What an endpoint receives: one body per event type, told apart by its event_type.
WebhookEvent = Annotated[
    OrderCancelledEvent | OrderCapturedEvent | OrderCreatedEvent | PayoutApprovedEvent | PayoutCancelledEvent | PayoutCreatedEvent | PayoutFailedEvent | PayoutInTransitEvent | PayoutPaidEvent | PayoutPendingApprovalEvent | PayoutRejectedEvent | PayoutReversedEvent | RefundCreatedEvent | RefundFailedEvent | RefundSucceededEvent | TopUpReceivedEvent,
    Field(discriminator="event_type"),
]
