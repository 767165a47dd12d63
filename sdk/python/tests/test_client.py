"""What the SDK promises (API.md §14), each against a real server: typed results with their
key, request id and replay flag; an error class per code; lists that page; a key made once per
call and kept on every retry, across a restart and through a real in-flight 409; no retry of a
definitive answer; async like sync; webhooks verified with several secrets."""

from __future__ import annotations

import asyncio
import threading
import time
import uuid
from datetime import datetime, timezone
from http.server import BaseHTTPRequestHandler, HTTPServer
from pathlib import Path
from typing import Any

import httpx

import pytest

import kaadxpay
from conftest import PartnerSim, Server, requests_with_key

IBAN = "DE89370400440532013000"
DESTINATION: kaadxpay.BankAccountParams = {"account_holder": "Ada Lovelace", "iban": IBAN}


def test_results_are_typed_and_say_their_key_request_and_replay(client: kaadxpay.Kaadxpay) -> None:
    order = client.orders.create(amount=1500, currency="EUR", metadata={"cart": "42"})
    assert order.id.startswith("ord_") and order.status == "pending"
    assert order.request_id is not None and order.request_id.startswith("req_")
    assert order.idempotency_key is not None and uuid.UUID(order.idempotency_key).version == 4
    assert order.replayed is False
    again = client.orders.create(
        amount=1500, currency="EUR", metadata={"cart": "42"}, idempotency_key=order.idempotency_key
    )
    assert again.id == order.id and again.replayed is True
    assert client.orders.retrieve(order.id).metadata == {"cart": "42"}
    assert client.orders.capture(order.id).status == "captured"
    assert client.idempotency_keys.retrieve(order.idempotency_key).status == "completed"


def test_each_refusal_is_its_error_class_with_its_facts(client: kaadxpay.Kaadxpay, api_key: str) -> None:
    key = f"too-much-{uuid.uuid4()}"
    with pytest.raises(kaadxpay.InsufficientFundsError) as short:
        client.payouts.create(amount=10**11, currency="GBP", destination=DESTINATION, idempotency_key=key)
    assert short.value.status == 402 and short.value.code == "insufficient_funds"
    assert short.value.idempotency_key == key and short.value.request_id is not None
    with pytest.raises(kaadxpay.InsufficientFundsError) as replayed:
        client.payouts.create(amount=10**11, currency="GBP", destination=DESTINATION, idempotency_key=key)
    assert replayed.value.replayed is True
    with pytest.raises(kaadxpay.IdempotencyKeyReusedError):
        client.payouts.create(amount=10**10, currency="GBP", destination=DESTINATION, idempotency_key=key)
    with pytest.raises(kaadxpay.ResourceMissingError):
        client.payouts.retrieve("po_nothing")
    with pytest.raises(kaadxpay.InvalidRequestError) as invalid:
        client.orders.create(amount=0, currency="EUR")
    assert invalid.value.param == "amount"
    order = client.orders.create(amount=100, currency="EUR")
    client.orders.cancel(order.id)
    with pytest.raises(kaadxpay.InvalidStateTransitionError):
        client.orders.capture(order.id)
    with pytest.raises(kaadxpay.AuthenticationError):
        kaadxpay.Kaadxpay("sk_test_wrong", base_url=client._options.base_url).balance.retrieve()
    # One attempt each: a definitive answer is never retried.
    assert len(requests_with_key(client, key, 3)) == 3


def test_a_list_pages_by_itself(client: kaadxpay.Kaadxpay) -> None:
    made = {client.orders.create(amount=10 + n, currency="JPY").id for n in range(5)}
    seen = [order.id for order in client.orders.list(limit=2)]
    assert made <= set(seen) and len(seen) == len(set(seen))


def test_the_balance_and_its_statement_page_and_filter(client: kaadxpay.Kaadxpay) -> None:
    before = datetime.now(timezone.utc)
    captured = []
    for amount in (300, 400, 500):
        order = client.orders.create(amount=amount, currency="CNY")
        client.orders.capture(order.id)
        captured.append(order.id)
    payout = client.payouts.create(amount=200, currency="CNY", destination=DESTINATION)
    items = list(client.balance_transactions.list(currency="CNY", limit=2))
    assert [item.source.id for item in items[:4]] == [payout.id, *reversed(captured)]
    assert [item.amount for item in items[:4]] == [-200, 500, 400, 300]
    assert len({item.id for item in items}) == len(items) and all(i.id.startswith("btx_") for i in items)
    available = {each.currency: each.amount for each in client.balance.retrieve().available}
    assert items[0].balance_after == available["CNY"]
    assert all(newer.balance_after - newer.amount == older.balance_after for newer, older in zip(items, items[1:]))
    credits = list(client.balance_transactions.list(currency="CNY", type="order_captured", created={"gte": before}))
    assert [item.source.id for item in credits] == list(reversed(captured))
    assert list(client.balance_transactions.list(currency="CNY", created={"lte": "2000-01-01T00:00:00Z"})) == []


def test_refunds_are_keyed_capped_and_listed_by_order(client: kaadxpay.Kaadxpay) -> None:
    order = client.orders.create(amount=1000, currency="EUR")
    client.orders.capture(order.id)
    first_key = f"refund-{uuid.uuid4()}"
    first = client.refunds.create(
        order.id, amount=300, destination=DESTINATION, reason="requested_by_customer", idempotency_key=first_key
    )
    assert first.id.startswith("re_") and first.order == order.id and first.status == "pending"
    assert first.amount == 300 and first.currency == "EUR" and first.reason == "requested_by_customer"
    assert first.idempotency_key == first_key and first.replayed is False
    second = client.refunds.create(order.id, amount=400, destination=DESTINATION, description="Broken handle")
    assert second.id != first.id and second.idempotency_key is not None and second.idempotency_key != first_key
    again = client.refunds.create(
        order.id, amount=300, destination=DESTINATION, reason="requested_by_customer", idempotency_key=first_key
    )
    assert again.id == first.id and again.replayed is True
    over_key = f"over-{uuid.uuid4()}"
    with pytest.raises(kaadxpay.AmountExceedsRefundableError) as over:
        client.refunds.create(order.id, amount=301, destination=DESTINATION, idempotency_key=over_key)
    assert over.value.status == 409 and over.value.code == "amount_exceeds_refundable"
    assert over.value.param == "amount" and over.value.idempotency_key == over_key
    with pytest.raises(kaadxpay.AmountExceedsRefundableError) as replayed:
        client.refunds.create(order.id, amount=301, destination=DESTINATION, idempotency_key=over_key)
    assert replayed.value.replayed is True
    # A definitive answer is never retried: one attempt per call.
    assert len(requests_with_key(client, over_key, 2)) == 2
    assert client.orders.retrieve(order.id).amount_refunded == 700
    assert client.refunds.retrieve(first.id).amount == 300
    listed = [refund.id for refund in client.refunds.list(order=order.id, limit=1)]
    assert listed == [second.id, first.id]
    other = client.orders.create(amount=50, currency="EUR")
    with pytest.raises(kaadxpay.InvalidStateTransitionError):
        client.refunds.create(other.id, destination=DESTINATION)
    client.orders.capture(other.id)
    rest = client.refunds.create(other.id, destination=DESTINATION)
    assert rest.amount == 50 and [refund.id for refund in client.refunds.list(order=other.id)] == [rest.id]
    assert {first.id, second.id, rest.id} <= {refund.id for refund in client.refunds.list(limit=2)}
    with pytest.raises(kaadxpay.ResourceMissingError):
        client.refunds.retrieve("re_nothing")


def test_money_sent_to_the_funding_account_is_a_top_up(api_key: str, tmp_path: Path) -> None:
    server = Server()
    partner = PartnerSim(f"{server.url}/webhooks/partner", str(tmp_path / "partner.jsonl"))
    server.partner_url = partner.url
    server.start()
    try:
        client = kaadxpay.Kaadxpay(api_key, base_url=server.url)
        account = client.funding_account.retrieve()
        assert account.object == "funding_account" and account.reference and account.iban
        sent = httpx.post(
            f"{partner.url}/_sim/incoming", json={"amount": 4200, "currency": "EUR", "reference": account.reference}
        )
        assert sent.status_code == 201
        incoming = sent.json()["id"]
        deadline = time.monotonic() + 15
        found = [top_up for top_up in client.top_ups.list(limit=1) if top_up.partner_incoming_id == incoming]
        while not found and time.monotonic() < deadline:
            time.sleep(0.2)
            found = [top_up for top_up in client.top_ups.list(limit=1) if top_up.partner_incoming_id == incoming]
        assert len(found) == 1
        top_up = client.top_ups.retrieve(found[0].id)
        assert top_up.id.startswith("tu_") and top_up.amount == 4200 and top_up.currency == "EUR"
        assert top_up.partner_incoming_id == incoming and top_up.request_id is not None
        with pytest.raises(kaadxpay.ResourceMissingError):
            client.top_ups.retrieve("tu_nothing")
    finally:
        server.stop()
        partner.stop()


def test_api_keys_are_made_rolled_and_revoked(client: kaadxpay.Kaadxpay, server: Server) -> None:
    reporting = client.api_keys.create(name="Reporting", access="read_only")
    assert reporting.id.startswith("key_") and reporting.secret is not None
    assert client.api_keys.retrieve(reporting.id).secret is None
    assert reporting.id in [key.id for key in client.api_keys.list(limit=2)]
    reader = kaadxpay.Kaadxpay(reporting.secret, base_url=server.url)
    assert reader.balance.retrieve().object == "balance"
    with pytest.raises(kaadxpay.PermissionDeniedError):
        reader.orders.create(amount=5, currency="EUR")
    successor = client.api_keys.roll(reporting.id, overlap="now")
    assert successor.secret is not None and successor.id != reporting.id
    refused_soon(reader)
    assert client.api_keys.revoke(successor.id).expires_at is not None
    refused_soon(kaadxpay.Kaadxpay(successor.secret, base_url=server.url))


def refused_soon(stopped: kaadxpay.Kaadxpay) -> None:
    """A stopped key is refused within moments (the server's key cache hears of it by a
    notification, after the answer that stopped it)."""
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        try:
            stopped.balance.retrieve()
        except kaadxpay.AuthenticationError:
            return
        time.sleep(0.05)
    raise AssertionError("a stopped key still works")


def test_a_call_retries_across_a_real_restart_with_one_key_and_one_effect(api_key: str) -> None:
    server = Server()
    server.start()
    server.stop()
    client = kaadxpay.Kaadxpay(api_key, base_url=server.url, max_retries=6)
    marker = f"across a restart {uuid.uuid4()}"
    restarter = threading.Timer(1.0, server.start, kwargs={"wait": False})
    restarter.start()
    try:
        order = client.orders.create(amount=777, currency="EUR", description=marker)
    finally:
        restarter.join()
    try:
        assert order.id.startswith("ord_")
        assert order.idempotency_key is not None
        record = client.idempotency_keys.retrieve(order.idempotency_key)
        assert record.resource is not None and record.resource.id == order.id
        assert [o.id for o in client.orders.list(limit=100) if o.description == marker] == [order.id]
    finally:
        server.stop()


def test_a_retried_call_keeps_its_key_and_executes_once(api_key: str) -> None:
    server = Server(failpoints="order.before_commit=1*return")
    server.start()
    try:
        client = kaadxpay.Kaadxpay(api_key, base_url=server.url)
        marker = f"kept key {uuid.uuid4()}"
        order = client.orders.create(amount=4242, currency="USD", description=marker)
        assert order.idempotency_key is not None
        logged = requests_with_key(client, order.idempotency_key, 2)
        assert sorted(entry.status for entry in logged) == [201, 500]
        assert [o.id for o in client.orders.list(limit=100) if o.description == marker] == [order.id]
    finally:
        server.stop()


def test_without_retries_the_fault_is_raised(api_key: str) -> None:
    server = Server(failpoints="order.before_commit=1*return")
    server.start()
    try:
        client = kaadxpay.Kaadxpay(api_key, base_url=server.url, max_retries=0)
        with pytest.raises(kaadxpay.InternalServerError) as fault:
            client.orders.create(amount=5, currency="USD")
        assert fault.value.should_retry is True
    finally:
        server.stop()


def test_a_real_request_in_flight_is_waited_out_and_replayed(api_key: str) -> None:
    server = Server(failpoints="idempotency.in_transaction=1*return(1500)")
    server.start()
    try:
        client = kaadxpay.Kaadxpay(api_key, base_url=server.url)
        results: dict[str, Any] = {}
        key = f"held-{uuid.uuid4()}"
        first = threading.Thread(
            target=lambda: results.update(first=client.orders.create(amount=9, currency="EUR", idempotency_key=key))
        )
        first.start()
        time.sleep(0.4)
        second = client.orders.create(amount=9, currency="EUR", idempotency_key=key)
        first.join()
        assert second.replayed is True and second.id == results["first"].id
        statuses = sorted(entry.status for entry in requests_with_key(client, key, 3))
        assert statuses == [201, 201, 409]
    finally:
        server.stop()


def test_the_async_client_does_the_same(server: Server, api_key: str) -> None:
    async def run() -> None:
        async with kaadxpay.AsyncKaadxpay(api_key, base_url=server.url) as client:
            order = await client.orders.create(amount=321, currency="CNY")
            assert order.idempotency_key is not None and order.request_id is not None
            assert (await client.orders.retrieve(order.id)).amount == 321
            ids = [item.id async for item in client.orders.list(limit=1)]
            assert order.id in ids
            with pytest.raises(kaadxpay.ResourceMissingError):
                await client.orders.retrieve("ord_missing")
            await client.orders.capture(order.id)
            items = [item async for item in client.balance_transactions.list(currency="CNY", limit=1)]
            assert items[0].source.id == order.id and items[0].amount == 321
            refund = await client.refunds.create(order.id, amount=21, destination=DESTINATION)
            assert (await client.refunds.retrieve(refund.id)).amount == 21
            assert [each.id async for each in client.refunds.list(order=order.id)] == [refund.id]
            assert (await client.funding_account.retrieve()).object == "funding_account"
            assert all(each.id.startswith("tu_") for each in [each async for each in client.top_ups.list(limit=1)])
            key = await client.api_keys.create(name="Async", access="read_only")
            assert (await client.api_keys.retrieve(key.id)).name == "Async"
            assert (await client.api_keys.revoke(key.id)).expires_at is not None

    asyncio.run(run())


class _Receiver(BaseHTTPRequestHandler):
    received: list[tuple[bytes, dict[str, str]]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["content-length"]))
        _Receiver.received.append((body, dict(self.headers.items())))
        self.send_response(200)
        self.end_headers()

    def log_message(self, *_: Any) -> None:
        pass


def _webhook_id(headers: dict[str, str]) -> str | None:
    return next((value for name, value in headers.items() if name.lower() == "webhook-id"), None)


def test_a_real_delivery_is_verified_with_any_of_its_secrets_and_typed(client: kaadxpay.Kaadxpay) -> None:
    receiver = HTTPServer(("127.0.0.1", 0), _Receiver)
    threading.Thread(target=receiver.serve_forever, daemon=True).start()
    try:
        endpoint = client.webhook_endpoints.create(url=f"http://127.0.0.1:{receiver.server_port}/hooks")
        old = endpoint.secret
        rotated = client.webhook_endpoints.rotate_secret(endpoint.id, overlap="1h")
        sent = client.webhook_endpoints.test(endpoint.id, event_type="payout.paid")
        # The endpoint hears of every event, real ones too (a refund settling): keep the test's.
        deadline = time.monotonic() + 15
        ours: list[tuple[bytes, dict[str, str]]] = []
        while not ours and time.monotonic() < deadline:
            time.sleep(0.1)
            ours = [(b, h) for b, h in _Receiver.received if _webhook_id(h) == str(sent.id)]
        body, headers = ours[0]
    finally:
        receiver.shutdown()
    for secrets in (rotated.secret, old, [old, rotated.secret]):
        event = client.webhooks.construct_event(body, headers, secrets)
        assert event.event_type == "payout.paid" and event.test is True
        assert isinstance(event, kaadxpay.models.PayoutPaidEvent)
        assert event.data.object.destination.iban
    wrong = "whsec_" + "A" * 32
    with pytest.raises(kaadxpay.SignatureVerificationError):
        client.webhooks.construct_event(body, headers, wrong)
    with pytest.raises(kaadxpay.SignatureVerificationError):
        client.webhooks.construct_event(body.replace(b"payout", b"pay0ut", 1), headers, old)


def test_the_integration_example_runs(server: Server, api_key: str) -> None:
    import os
    import sys

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "examples"))
    import integration

    done = integration.main(server.url, api_key)
    assert done.payout is not None and done.payout.status in ("pending", "in_transit", "paid")
    assert done.too_much_refused
    assert done.webhook.startswith("captured ")
    assert done.forged_webhook == "not from Kaadxpay: refused"
