"""An integration, as a merchant writes it: an order and a payout, each error handled, a list
paged through, a webhook verified and read. It type-checks under ``mypy --strict`` with no cast
and no ``Any``, and the SDK's tests run it against a real server."""

from __future__ import annotations

import sys
from collections.abc import Mapping

import kaadxpay
from kaadxpay.models import Order, Payout, WebhookEvent


def pay_out(client: kaadxpay.Kaadxpay, amount: int) -> Payout | None:
    """A payout, or None when the balance is short (a new attempt would need a new key)."""
    try:
        return client.payouts.create(
            amount=amount,
            currency="EUR",
            destination={"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"},
            description="Weekly settlement",
        )
    except kaadxpay.InsufficientFundsError as short:
        print(f"not enough EUR ({short.request_id}, key {short.idempotency_key})")
        return None
    except kaadxpay.InvalidRequestError as invalid:
        print(f"fix {invalid.param}: {invalid.message}")
        return None
    except (kaadxpay.ServiceUnavailableError, kaadxpay.APIConnectionError) as outage:
        # Retried already with the same key; the same call later is still safe.
        print(f"try again later with key {outage.idempotency_key}")
        return None


def describe(event: WebhookEvent) -> str:
    """What a receiver does with each kind of event: the event type narrows the object."""
    if event.event_type == "payout.paid" or event.event_type == "payout.failed":
        return f"{event.event_type}: {event.data.object.destination.iban}"
    if event.event_type == "order.captured":
        return f"captured {event.data.object.amount} {event.data.object.currency}"
    return event.event_type


def receive(client: kaadxpay.Kaadxpay, body: bytes, headers: Mapping[str, str], secrets: list[str]) -> str:
    try:
        return describe(client.webhooks.construct_event(body, headers, secrets))
    except kaadxpay.SignatureVerificationError:
        return "refused"


def main(base_url: str, api_key: str) -> None:
    client = kaadxpay.Kaadxpay(api_key, base_url=base_url)
    order: Order = client.orders.create(amount=2500, currency="EUR", description="Example")
    try:
        order = client.orders.capture(order.id)
    except kaadxpay.InvalidStateTransitionError as moved:
        print(f"the order moved already: {moved.message}")
    payout = pay_out(client, 1000)
    if payout is not None:
        print(f"payout {payout.id} {payout.status}, replayed: {payout.replayed}")
    captured = sum(order.amount for order in client.orders.list(limit=10) if order.status == "captured")
    print(f"captured so far: {captured}; payout made: {payout is not None}")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
