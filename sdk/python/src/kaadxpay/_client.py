"""The clients: ``Kaadxpay`` (sync) and ``AsyncKaadxpay``, each with the API's resources.

Every call goes through one loop (``_send``): the call's key made once, the same body bytes on
every attempt, retried on no answer and on the errors that say so, waiting ``Retry-After`` or
a jittered back-off.
"""

from __future__ import annotations

import asyncio
import time
from datetime import datetime
from typing import Any, Literal, TypedDict, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel

from ._core import DEFAULT_BASE_URL, Attempts, Call
from ._errors import KaadxpayError
from ._pagination import AsyncPager, Pager
from ._webhooks import Webhooks
from .models import (
    Access,
    ApiKey,
    Balance,
    BalanceTransaction,
    Currency,
    Deleted,
    Endpoint,
    EndpointWithSecret,
    Event,
    EventType,
    EventWithDeliveries,
    FundingAccount,
    KeyOverlap,
    KeyWithTimeline,
    ListApiKey,
    ListEndpoint,
    ListBalanceTransaction,
    ListEvent,
    ListLoggedRequest,
    ListOrder,
    ListPayout,
    ListRefund,
    ListTopUp,
    LoggedRequest,
    Order,
    Payout,
    Recovery,
    Refund,
    Subscriptions,
    TopUp,
)

T = TypeVar("T", bound=BaseModel)
P = TypeVar("P", bound=BaseModel)


class BankAccountParams(TypedDict):
    """A payout's destination, as a call gives it."""

    account_holder: str
    iban: str


#: A statement item's ``type`` (API.md §13).
BalanceTransactionType = Literal[
    "order_captured",
    "payout",
    "payout_returned",
    "refund",
    "refund_returned",
    "top_up",
    "reservation",
    "reservation_released",
]

#: Why a refund is made (API.md §13).
RefundReason = Literal["requested_by_customer", "duplicate", "fraudulent"]


class CreatedRange(TypedDict, total=False):
    """A time range on ``created_at``, both ends included: ``{"gte": ..., "lte": ...}``."""

    gte: datetime | str
    lte: datetime | str


def _created(created: CreatedRange | None) -> dict[str, str]:
    """``created[gte]`` and ``created[lte]`` as the query has them (RFC 3339)."""
    ends = created or {}
    query: dict[str, str] = {}
    for end, when in (("gte", ends.get("gte")), ("lte", ends.get("lte"))):
        if when is not None:
            query[f"created[{end}]"] = when.isoformat() if isinstance(when, datetime) else when
    return query


def _segment(value: str) -> str:
    """A path segment: an id or a key, URL-encoded."""
    return quote(value, safe="")


def _refund(
    order: str,
    destination: BankAccountParams,
    amount: int | None,
    reason: RefundReason | None,
    description: str | None,
    idempotency_key: str | None,
) -> Call[Refund]:
    """``POST /v1/orders/{order}/refunds``, for both clients."""
    body = {"amount": amount, "destination": dict(destination), "reason": reason, "description": description}
    path = f"/v1/orders/{_segment(order)}/refunds"
    return Call("POST", path, Refund, body, idempotency_key=idempotency_key)


class _Options:
    def __init__(self, api_key: str, base_url: str, max_retries: int, timeout: float) -> None:
        self.api_key = api_key
        self.base_url = base_url.rstrip("/")
        self.max_retries = max_retries
        self.timeout = timeout


class _Resource:
    def __init__(self, client: Kaadxpay) -> None:
        self._client = client

    def _send(self, call: Call[T]) -> T:
        return self._client._send(call)

    def _list(self, path: str, page: type[P], query: dict[str, Any], starting_after: str | None) -> Pager[Any]:
        def fetch(after: str | None) -> Any:
            return self._send(Call("GET", path, page, query={**query, "starting_after": after}))

        return Pager(fetch, starting_after)


class _AsyncResource:
    def __init__(self, client: AsyncKaadxpay) -> None:
        self._client = client

    async def _send(self, call: Call[T]) -> T:
        return await self._client._send(call)

    def _list(self, path: str, page: type[P], query: dict[str, Any], starting_after: str | None) -> AsyncPager[Any]:
        async def fetch(after: str | None) -> Any:
            return await self._send(Call("GET", path, page, query={**query, "starting_after": after}))

        return AsyncPager(fetch, starting_after)


class Orders(_Resource):
    """``/v1/orders``: money in (API.md §3)."""

    def create(
        self,
        *,
        amount: int,
        currency: Currency,
        description: str | None = None,
        metadata: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Order:
        body = {"amount": amount, "currency": currency, "description": description, "metadata": metadata}
        return self._send(Call("POST", "/v1/orders", Order, body, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> Order:
        return self._send(Call("GET", f"/v1/orders/{_segment(id)}", Order))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Pager[Order]:
        return self._list("/v1/orders", ListOrder, {"limit": limit}, starting_after)

    def capture(self, id: str) -> Order:
        return self._send(Call("PUT", f"/v1/orders/{_segment(id)}", Order, {"status": "captured"}))

    def cancel(self, id: str) -> Order:
        return self._send(Call("PUT", f"/v1/orders/{_segment(id)}", Order, {"status": "cancelled"}))


class Payouts(_Resource):
    """``/v1/payouts``: money out to a bank account (API.md §4)."""

    def create(
        self,
        *,
        amount: int,
        currency: Currency,
        destination: BankAccountParams,
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> Payout:
        body = {"amount": amount, "currency": currency, "destination": dict(destination), "description": description}
        return self._send(Call("POST", "/v1/payouts", Payout, body, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> Payout:
        return self._send(Call("GET", f"/v1/payouts/{_segment(id)}", Payout))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Pager[Payout]:
        return self._list("/v1/payouts", ListPayout, {"limit": limit}, starting_after)

    def cancel(self, id: str, *, idempotency_key: str | None = None) -> Payout:
        path = f"/v1/payouts/{_segment(id)}/cancel"
        return self._send(Call("POST", path, Payout, {}, idempotency_key=idempotency_key))


class BalanceResource(_Resource):
    """``/v1/balance``."""

    def retrieve(self) -> Balance:
        return self._send(Call("GET", "/v1/balance", Balance))


class BalanceTransactions(_Resource):
    """``/v1/balance-transactions``: the statement, newest first (API.md §13)."""

    def list(
        self,
        *,
        currency: Currency | None = None,
        type: BalanceTransactionType | None = None,
        created: CreatedRange | None = None,
        limit: int | None = None,
        starting_after: str | None = None,
    ) -> Pager[BalanceTransaction]:
        query = {"currency": currency, "type": type, "limit": limit, **_created(created)}
        return self._list("/v1/balance-transactions", ListBalanceTransaction, query, starting_after)


class Refunds(_Resource):
    """``/v1/refunds``: money back to an order's customer (API.md §13)."""

    def create(
        self,
        order: str,
        *,
        destination: BankAccountParams,
        amount: int | None = None,
        reason: RefundReason | None = None,
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> Refund:
        """Refunds ``amount`` of a captured order (by default, what is left to refund)."""
        return self._send(_refund(order, destination, amount, reason, description, idempotency_key))

    def retrieve(self, id: str) -> Refund:
        return self._send(Call("GET", f"/v1/refunds/{_segment(id)}", Refund))

    def list(
        self, *, order: str | None = None, limit: int | None = None, starting_after: str | None = None
    ) -> Pager[Refund]:
        return self._list("/v1/refunds", ListRefund, {"order": order, "limit": limit}, starting_after)


class TopUps(_Resource):
    """``/v1/top-ups``: money in from the partner, each transfer credited once (API.md §13)."""

    def retrieve(self, id: str) -> TopUp:
        return self._send(Call("GET", f"/v1/top-ups/{_segment(id)}", TopUp))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Pager[TopUp]:
        return self._list("/v1/top-ups", ListTopUp, {"limit": limit}, starting_after)


class FundingAccountResource(_Resource):
    """``/v1/funding-account``: where a transfer with its reference becomes a top-up."""

    def retrieve(self) -> FundingAccount:
        return self._send(Call("GET", "/v1/funding-account", FundingAccount))


class ApiKeys(_Resource):
    """``/v1/api-keys``: the merchant's API keys (API.md §11); a secret is in the answer that
    made the key only."""

    def create(self, *, name: str, access: Access | None = None, idempotency_key: str | None = None) -> ApiKey:
        body = {"name": name, "access": access}
        return self._send(Call("POST", "/v1/api-keys", ApiKey, body, idempotency_key=idempotency_key))

    def retrieve(self, id: str) -> ApiKey:
        return self._send(Call("GET", f"/v1/api-keys/{_segment(id)}", ApiKey))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Pager[ApiKey]:
        return self._list("/v1/api-keys", ListApiKey, {"limit": limit}, starting_after)

    def roll(self, id: str, *, overlap: KeyOverlap, idempotency_key: str | None = None) -> ApiKey:
        path = f"/v1/api-keys/{_segment(id)}/roll"
        return self._send(Call("POST", path, ApiKey, {"overlap": overlap}, idempotency_key=idempotency_key))

    def revoke(self, id: str) -> ApiKey:
        return self._send(Call("DELETE", f"/v1/api-keys/{_segment(id)}", ApiKey))


class WebhookEndpoints(_Resource):
    """``/v1/webhook-endpoints``: where events are sent (API.md §5)."""

    def create(
        self, *, url: str, events: Subscriptions | None = None, idempotency_key: str | None = None
    ) -> EndpointWithSecret:
        body = {"url": url, "events": events}
        call = Call("POST", "/v1/webhook-endpoints", EndpointWithSecret, body, idempotency_key=idempotency_key)
        return self._send(call)

    def retrieve(self, id: str) -> Endpoint:
        return self._send(Call("GET", f"/v1/webhook-endpoints/{_segment(id)}", Endpoint))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Pager[Endpoint]:
        return self._list("/v1/webhook-endpoints", ListEndpoint, {"limit": limit}, starting_after)

    def update(
        self, id: str, *, url: str | None = None, events: Subscriptions | None = None, disabled: bool | None = None
    ) -> Endpoint:
        body = {"url": url, "events": events, "disabled": disabled}
        return self._send(Call("PATCH", f"/v1/webhook-endpoints/{_segment(id)}", Endpoint, body))

    def delete(self, id: str) -> Deleted:
        return self._send(Call("DELETE", f"/v1/webhook-endpoints/{_segment(id)}", Deleted))

    def rotate_secret(self, id: str, *, overlap: str, idempotency_key: str | None = None) -> EndpointWithSecret:
        path = f"/v1/webhook-endpoints/{_segment(id)}/rotate-secret"
        return self._send(Call("POST", path, EndpointWithSecret, {"overlap": overlap}, idempotency_key=idempotency_key))

    def recover(self, id: str, *, since: str, idempotency_key: str | None = None) -> Recovery:
        path = f"/v1/webhook-endpoints/{_segment(id)}/recover"
        return self._send(Call("POST", path, Recovery, {"since": since}, idempotency_key=idempotency_key))

    def test(self, id: str, *, event_type: EventType, idempotency_key: str | None = None) -> EventWithDeliveries:
        path = f"/v1/webhook-endpoints/{_segment(id)}/test"
        body = {"event_type": event_type}
        return self._send(Call("POST", path, EventWithDeliveries, body, idempotency_key=idempotency_key))


class Events(_Resource):
    """``/v1/events``: what happened, and its deliveries."""

    def retrieve(self, id: str) -> EventWithDeliveries:
        return self._send(Call("GET", f"/v1/events/{_segment(id)}", EventWithDeliveries))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> Pager[Event]:
        return self._list("/v1/events", ListEvent, {"limit": limit}, starting_after)

    def redeliver(self, id: str, *, idempotency_key: str | None = None) -> EventWithDeliveries:
        path = f"/v1/events/{_segment(id)}/redeliver"
        return self._send(Call("POST", path, EventWithDeliveries, {}, idempotency_key=idempotency_key))


class IdempotencyKeys(_Resource):
    """``/v1/idempotency-keys/{key}``: a key's live record and its timeline (API.md §2)."""

    def retrieve(self, key: str) -> KeyWithTimeline:
        return self._send(Call("GET", f"/v1/idempotency-keys/{_segment(key)}", KeyWithTimeline))


class Requests(_Resource):
    """``/v1/requests``: the request log (API.md §12)."""

    def retrieve(self, id: str) -> LoggedRequest:
        return self._send(Call("GET", f"/v1/requests/{_segment(id)}", LoggedRequest))

    def list(
        self,
        *,
        idempotency_key: str | None = None,
        status: int | None = None,
        route: str | None = None,
        limit: int | None = None,
        starting_after: str | None = None,
    ) -> Pager[LoggedRequest]:
        query = {"idempotency_key": idempotency_key, "status": status, "route": route, "limit": limit}
        return self._list("/v1/requests", ListLoggedRequest, query, starting_after)


class AsyncOrders(_AsyncResource):
    """``/v1/orders``: money in (API.md §3)."""

    async def create(
        self,
        *,
        amount: int,
        currency: Currency,
        description: str | None = None,
        metadata: dict[str, str] | None = None,
        idempotency_key: str | None = None,
    ) -> Order:
        body = {"amount": amount, "currency": currency, "description": description, "metadata": metadata}
        return await self._send(Call("POST", "/v1/orders", Order, body, idempotency_key=idempotency_key))

    async def retrieve(self, id: str) -> Order:
        return await self._send(Call("GET", f"/v1/orders/{_segment(id)}", Order))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> AsyncPager[Order]:
        return self._list("/v1/orders", ListOrder, {"limit": limit}, starting_after)

    async def capture(self, id: str) -> Order:
        return await self._send(Call("PUT", f"/v1/orders/{_segment(id)}", Order, {"status": "captured"}))

    async def cancel(self, id: str) -> Order:
        return await self._send(Call("PUT", f"/v1/orders/{_segment(id)}", Order, {"status": "cancelled"}))


class AsyncPayouts(_AsyncResource):
    """``/v1/payouts``: money out to a bank account (API.md §4)."""

    async def create(
        self,
        *,
        amount: int,
        currency: Currency,
        destination: BankAccountParams,
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> Payout:
        body = {"amount": amount, "currency": currency, "destination": dict(destination), "description": description}
        return await self._send(Call("POST", "/v1/payouts", Payout, body, idempotency_key=idempotency_key))

    async def retrieve(self, id: str) -> Payout:
        return await self._send(Call("GET", f"/v1/payouts/{_segment(id)}", Payout))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> AsyncPager[Payout]:
        return self._list("/v1/payouts", ListPayout, {"limit": limit}, starting_after)

    async def cancel(self, id: str, *, idempotency_key: str | None = None) -> Payout:
        path = f"/v1/payouts/{_segment(id)}/cancel"
        return await self._send(Call("POST", path, Payout, {}, idempotency_key=idempotency_key))


class AsyncBalanceResource(_AsyncResource):
    """``/v1/balance``."""

    async def retrieve(self) -> Balance:
        return await self._send(Call("GET", "/v1/balance", Balance))


class AsyncBalanceTransactions(_AsyncResource):
    """``/v1/balance-transactions``: the statement, newest first (API.md §13)."""

    def list(
        self,
        *,
        currency: Currency | None = None,
        type: BalanceTransactionType | None = None,
        created: CreatedRange | None = None,
        limit: int | None = None,
        starting_after: str | None = None,
    ) -> AsyncPager[BalanceTransaction]:
        query = {"currency": currency, "type": type, "limit": limit, **_created(created)}
        return self._list("/v1/balance-transactions", ListBalanceTransaction, query, starting_after)


class AsyncRefunds(_AsyncResource):
    """``/v1/refunds``: money back to an order's customer (API.md §13)."""

    async def create(
        self,
        order: str,
        *,
        destination: BankAccountParams,
        amount: int | None = None,
        reason: RefundReason | None = None,
        description: str | None = None,
        idempotency_key: str | None = None,
    ) -> Refund:
        """Refunds ``amount`` of a captured order (by default, what is left to refund)."""
        return await self._send(_refund(order, destination, amount, reason, description, idempotency_key))

    async def retrieve(self, id: str) -> Refund:
        return await self._send(Call("GET", f"/v1/refunds/{_segment(id)}", Refund))

    def list(
        self, *, order: str | None = None, limit: int | None = None, starting_after: str | None = None
    ) -> AsyncPager[Refund]:
        return self._list("/v1/refunds", ListRefund, {"order": order, "limit": limit}, starting_after)


class AsyncTopUps(_AsyncResource):
    """``/v1/top-ups``: money in from the partner, each transfer credited once (API.md §13)."""

    async def retrieve(self, id: str) -> TopUp:
        return await self._send(Call("GET", f"/v1/top-ups/{_segment(id)}", TopUp))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> AsyncPager[TopUp]:
        return self._list("/v1/top-ups", ListTopUp, {"limit": limit}, starting_after)


class AsyncFundingAccountResource(_AsyncResource):
    """``/v1/funding-account``: where a transfer with its reference becomes a top-up."""

    async def retrieve(self) -> FundingAccount:
        return await self._send(Call("GET", "/v1/funding-account", FundingAccount))


class AsyncApiKeys(_AsyncResource):
    """``/v1/api-keys``: the merchant's API keys (API.md §11); a secret is in the answer that
    made the key only."""

    async def create(self, *, name: str, access: Access | None = None, idempotency_key: str | None = None) -> ApiKey:
        body = {"name": name, "access": access}
        return await self._send(Call("POST", "/v1/api-keys", ApiKey, body, idempotency_key=idempotency_key))

    async def retrieve(self, id: str) -> ApiKey:
        return await self._send(Call("GET", f"/v1/api-keys/{_segment(id)}", ApiKey))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> AsyncPager[ApiKey]:
        return self._list("/v1/api-keys", ListApiKey, {"limit": limit}, starting_after)

    async def roll(self, id: str, *, overlap: KeyOverlap, idempotency_key: str | None = None) -> ApiKey:
        path = f"/v1/api-keys/{_segment(id)}/roll"
        return await self._send(Call("POST", path, ApiKey, {"overlap": overlap}, idempotency_key=idempotency_key))

    async def revoke(self, id: str) -> ApiKey:
        return await self._send(Call("DELETE", f"/v1/api-keys/{_segment(id)}", ApiKey))


class AsyncWebhookEndpoints(_AsyncResource):
    """``/v1/webhook-endpoints``: where events are sent (API.md §5)."""

    async def create(
        self, *, url: str, events: Subscriptions | None = None, idempotency_key: str | None = None
    ) -> EndpointWithSecret:
        body = {"url": url, "events": events}
        call = Call("POST", "/v1/webhook-endpoints", EndpointWithSecret, body, idempotency_key=idempotency_key)
        return await self._send(call)

    async def retrieve(self, id: str) -> Endpoint:
        return await self._send(Call("GET", f"/v1/webhook-endpoints/{_segment(id)}", Endpoint))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> AsyncPager[Endpoint]:
        return self._list("/v1/webhook-endpoints", ListEndpoint, {"limit": limit}, starting_after)

    async def update(
        self, id: str, *, url: str | None = None, events: Subscriptions | None = None, disabled: bool | None = None
    ) -> Endpoint:
        body = {"url": url, "events": events, "disabled": disabled}
        return await self._send(Call("PATCH", f"/v1/webhook-endpoints/{_segment(id)}", Endpoint, body))

    async def delete(self, id: str) -> Deleted:
        return await self._send(Call("DELETE", f"/v1/webhook-endpoints/{_segment(id)}", Deleted))

    async def rotate_secret(self, id: str, *, overlap: str, idempotency_key: str | None = None) -> EndpointWithSecret:
        path = f"/v1/webhook-endpoints/{_segment(id)}/rotate-secret"
        return await self._send(Call("POST", path, EndpointWithSecret, {"overlap": overlap}, idempotency_key=idempotency_key))

    async def recover(self, id: str, *, since: str, idempotency_key: str | None = None) -> Recovery:
        path = f"/v1/webhook-endpoints/{_segment(id)}/recover"
        return await self._send(Call("POST", path, Recovery, {"since": since}, idempotency_key=idempotency_key))

    async def test(self, id: str, *, event_type: EventType, idempotency_key: str | None = None) -> EventWithDeliveries:
        path = f"/v1/webhook-endpoints/{_segment(id)}/test"
        body = {"event_type": event_type}
        return await self._send(Call("POST", path, EventWithDeliveries, body, idempotency_key=idempotency_key))


class AsyncEvents(_AsyncResource):
    """``/v1/events``: what happened, and its deliveries."""

    async def retrieve(self, id: str) -> EventWithDeliveries:
        return await self._send(Call("GET", f"/v1/events/{_segment(id)}", EventWithDeliveries))

    def list(self, *, limit: int | None = None, starting_after: str | None = None) -> AsyncPager[Event]:
        return self._list("/v1/events", ListEvent, {"limit": limit}, starting_after)

    async def redeliver(self, id: str, *, idempotency_key: str | None = None) -> EventWithDeliveries:
        path = f"/v1/events/{_segment(id)}/redeliver"
        return await self._send(Call("POST", path, EventWithDeliveries, {}, idempotency_key=idempotency_key))


class AsyncIdempotencyKeys(_AsyncResource):
    """``/v1/idempotency-keys/{key}``: a key's live record and its timeline (API.md §2)."""

    async def retrieve(self, key: str) -> KeyWithTimeline:
        return await self._send(Call("GET", f"/v1/idempotency-keys/{_segment(key)}", KeyWithTimeline))


class AsyncRequests(_AsyncResource):
    """``/v1/requests``: the request log (API.md §12)."""

    async def retrieve(self, id: str) -> LoggedRequest:
        return await self._send(Call("GET", f"/v1/requests/{_segment(id)}", LoggedRequest))

    def list(
        self,
        *,
        idempotency_key: str | None = None,
        status: int | None = None,
        route: str | None = None,
        limit: int | None = None,
        starting_after: str | None = None,
    ) -> AsyncPager[LoggedRequest]:
        query = {"idempotency_key": idempotency_key, "status": status, "route": route, "limit": limit}
        return self._list("/v1/requests", ListLoggedRequest, query, starting_after)


class Kaadxpay:
    """A merchant's client: ``Kaadxpay(api_key, base_url=..., max_retries=2, timeout=30.0)``.

    ``max_retries`` counts the retries after the first attempt; ``timeout`` is in seconds, per
    attempt.
    """

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        max_retries: int = 2,
        timeout: float = 30.0,
        http_client: httpx.Client | None = None,
    ) -> None:
        self._options = _Options(api_key, base_url, max_retries, timeout)
        self._http = http_client or httpx.Client(timeout=timeout)
        self.orders = Orders(self)
        self.payouts = Payouts(self)
        self.balance = BalanceResource(self)
        self.balance_transactions = BalanceTransactions(self)
        self.refunds = Refunds(self)
        self.top_ups = TopUps(self)
        self.funding_account = FundingAccountResource(self)
        self.api_keys = ApiKeys(self)
        self.webhook_endpoints = WebhookEndpoints(self)
        self.events = Events(self)
        self.idempotency_keys = IdempotencyKeys(self)
        self.requests = Requests(self)
        self.webhooks = Webhooks()

    def _send(self, call: Call[T]) -> T:
        options = self._options
        attempts = Attempts(call, options.api_key, options.base_url, options.max_retries)
        while True:
            answer: httpx.Response | httpx.TransportError
            try:
                answer = self._http.request(**attempts.request)
            except httpx.TransportError as error:
                answer = error
            outcome = attempts.outcome(answer)
            if not isinstance(outcome, KaadxpayError):
                return outcome
            time.sleep(attempts.wait(outcome, answer))

    def close(self) -> None:
        self._http.close()

    def __enter__(self) -> Kaadxpay:
        return self

    def __exit__(self, *_: object) -> None:
        self.close()


class AsyncKaadxpay:
    """The same client for ``asyncio``: every call is awaited, every list is ``async for``."""

    def __init__(
        self,
        api_key: str,
        *,
        base_url: str = DEFAULT_BASE_URL,
        max_retries: int = 2,
        timeout: float = 30.0,
        http_client: httpx.AsyncClient | None = None,
    ) -> None:
        self._options = _Options(api_key, base_url, max_retries, timeout)
        self._http = http_client or httpx.AsyncClient(timeout=timeout)
        self.orders = AsyncOrders(self)
        self.payouts = AsyncPayouts(self)
        self.balance = AsyncBalanceResource(self)
        self.balance_transactions = AsyncBalanceTransactions(self)
        self.refunds = AsyncRefunds(self)
        self.top_ups = AsyncTopUps(self)
        self.funding_account = AsyncFundingAccountResource(self)
        self.api_keys = AsyncApiKeys(self)
        self.webhook_endpoints = AsyncWebhookEndpoints(self)
        self.events = AsyncEvents(self)
        self.idempotency_keys = AsyncIdempotencyKeys(self)
        self.requests = AsyncRequests(self)
        self.webhooks = Webhooks()

    async def _send(self, call: Call[T]) -> T:
        options = self._options
        attempts = Attempts(call, options.api_key, options.base_url, options.max_retries)
        while True:
            answer: httpx.Response | httpx.TransportError
            try:
                answer = await self._http.request(**attempts.request)
            except httpx.TransportError as error:
                answer = error
            outcome = attempts.outcome(answer)
            if not isinstance(outcome, KaadxpayError):
                return outcome
            await asyncio.sleep(attempts.wait(outcome, answer))

    async def close(self) -> None:
        await self._http.aclose()

    async def __aenter__(self) -> AsyncKaadxpay:
        return self

    async def __aexit__(self, *_: object) -> None:
        await self.close()
