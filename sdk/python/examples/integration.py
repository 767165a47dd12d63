"""An integration, as a merchant writes it: an order and a payout, each error handled, lists
paged through, a webhook received, verified and read. It type-checks under ``mypy --strict``
with no cast and no ``Any``, and the SDK's tests run it against a real server."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Mapping
from http.server import BaseHTTPRequestHandler, HTTPServer
from typing import NamedTuple

import kaadxpay
from kaadxpay.models import Order, Payout, WebhookEvent


def explain(error: kaadxpay.KaadxpayError) -> str:
    """What a merchant's code does about each error: every class the SDK raises."""
    if isinstance(error, kaadxpay.InsufficientFundsError):
        return f"not enough money: wait for captures (request {error.request_id})"
    if isinstance(error, kaadxpay.InvalidRequestError):
        return f"fix {error.param}: {error.message}"
    if isinstance(error, kaadxpay.AuthenticationError):
        return "the API key is wrong or was revoked"
    if isinstance(error, kaadxpay.PermissionDeniedError):
        return "this key may not do that (a read-only key?)"
    if isinstance(error, kaadxpay.ResourceMissingError):
        return "no such object for this merchant"
    if isinstance(error, kaadxpay.InvalidStateTransitionError):
        return f"the object moved already: {error.message}"
    if isinstance(error, kaadxpay.AmountExceedsRefundableError):
        return f"less is left to refund: {error.message}"
    if isinstance(error, kaadxpay.IdempotencyKeyReusedError):
        return f"key {error.idempotency_key} was used for another request: use a new key"
    if isinstance(error, kaadxpay.RequestInProgressError):
        return f"key {error.idempotency_key} is still being worked on: ask again later"
    if isinstance(
        error,
        (
            kaadxpay.ServiceUnavailableError,
            kaadxpay.InternalServerError,
            kaadxpay.RequestTimeoutError,
            kaadxpay.APIConnectionError,
        ),
    ):
        # Retried already with the same key; the same call with that key later is still safe.
        return f"try again later with key {error.idempotency_key}"
    if isinstance(error, kaadxpay.SignatureVerificationError):
        return "not from Kaadxpay: refused"
    return f"{error.code}: {error.message}"


def pay_out(client: kaadxpay.Kaadxpay, amount: int) -> Payout | None:
    """A payout, or None (saying why) when it was refused."""
    try:
        return client.payouts.create(
            amount=amount,
            currency="EUR",
            destination={"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"},
            description="Weekly settlement",
        )
    except kaadxpay.KaadxpayError as refused:
        print(explain(refused))
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
    except kaadxpay.SignatureVerificationError as forged:
        return explain(forged)


class Receiver(BaseHTTPRequestHandler):
    """The merchant's webhook endpoint: keeps each delivery's raw body and headers."""

    deliveries: list[tuple[bytes, dict[str, str]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        Receiver.deliveries.append((body, dict(self.headers.items())))
        self.send_response(200)
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        pass


class Done(NamedTuple):
    """What the example did, for its test to check."""

    payout: Payout | None
    too_much_refused: bool
    webhook: str
    forged_webhook: str


def webhook_round_trip(client: kaadxpay.Kaadxpay) -> tuple[str, str]:
    """Registers an endpoint here, has a test event sent to it, and reads the delivery."""
    server = HTTPServer(("127.0.0.1", 0), Receiver)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        endpoint = client.webhook_endpoints.create(
            url=f"http://127.0.0.1:{server.server_port}/hooks", events=["order.captured"]
        )
        client.webhook_endpoints.test(endpoint.id, event_type="order.captured")
        deadline = time.monotonic() + 15
        while not Receiver.deliveries and time.monotonic() < deadline:
            time.sleep(0.1)
        body, headers = Receiver.deliveries[0]
        read = receive(client, body, headers, [endpoint.secret])
        forged = receive(client, body.replace(b"order", b"0rder", 1), headers, [endpoint.secret])
        client.webhook_endpoints.delete(endpoint.id)
        return read, forged
    finally:
        server.shutdown()


def main(base_url: str, api_key: str) -> Done:
    client = kaadxpay.Kaadxpay(api_key, base_url=base_url)
    order: Order = client.orders.create(amount=2500, currency="EUR", description="Example")
    try:
        order = client.orders.capture(order.id)
        client.orders.cancel(order.id)
    except kaadxpay.InvalidStateTransitionError as moved:
        print(explain(moved))
    try:
        client.orders.create(amount=0, currency="EUR")
    except kaadxpay.InvalidRequestError as invalid:
        print(explain(invalid))
    customer: kaadxpay.BankAccountParams = {"account_holder": "Grace Hopper", "iban": "DE89370400440532013000"}
    refund = client.refunds.create(order.id, amount=500, destination=customer, reason="requested_by_customer")
    print(f"refund {refund.id} {refund.status} of {refund.order}, key {refund.idempotency_key}")
    try:
        client.refunds.create(order.id, amount=order.amount, destination=customer)
    except kaadxpay.AmountExceedsRefundableError as over:
        print(explain(over))
    print(f"refunds of {order.id}: {[each.amount for each in client.refunds.list(order=order.id)]}")
    payout = pay_out(client, 1000)
    if payout is not None:
        print(f"payout {payout.id} {payout.status}, key {payout.idempotency_key}, replayed: {payout.replayed}")
    too_much = pay_out(client, 10**11)
    captured = sum(each.amount for each in client.orders.list(limit=10) if each.status == "captured")
    statement = [f"{item.type} {item.amount:+d}" for item in client.balance_transactions.list(currency="EUR", limit=5)]
    available = {each.currency: each.amount for each in client.balance.retrieve().available}
    print(f"captured so far: {captured}; EUR available {available.get('EUR', 0)}; statement {statement[:3]}")
    print(f"payout made: {payout is not None}; too much refused: {too_much is None}")
    read, forged = webhook_round_trip(client)
    print(f"webhook: {read}; a forged copy: {forged}")
    return Done(payout, too_much is None, read, forged)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
