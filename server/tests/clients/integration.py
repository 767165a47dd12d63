"""An integrator's first script, written against the client openapi-python-client generates from
/openapi.json: it must type-check under `mypy --strict` and work against a live server.

Usage: python integration.py BASE_URL API_KEY
"""

import sys
import uuid

from kaadxpay_client import AuthenticatedClient
from kaadxpay_client.api.idempotency import get_idempotency_key
from kaadxpay_client.api.orders import create_order, update_order
from kaadxpay_client.api.payouts import create_payout
from kaadxpay_client.models import (
    BankAccount,
    CreateOrder,
    CreatePayout,
    Currency,
    Error422,
    KeyWithTimeline,
    KeyRecordStatus,
    Order,
    OrderStatus,
    Payout,
    PayoutStatus,
    Target,
    UpdateOrder,
)


def check(condition: bool, what: str) -> None:
    if not condition:
        raise SystemExit(f"integration failed: {what}")


def main(base_url: str, api_key: str) -> None:
    client = AuthenticatedClient(base_url=base_url, token=api_key)
    key = f"py-order-{uuid.uuid4()}"
    body = CreateOrder(amount=5000, currency=Currency.EUR, description="Generated client")

    created = create_order.sync_detailed(client=client, body=body, idempotency_key=key)
    check(created.status_code == 201, f"create: {created.status_code} {created.content!r}")
    order = created.parsed
    check(isinstance(order, Order), "create answers an Order")
    assert isinstance(order, Order)
    check(order.status is OrderStatus.PENDING, "a new order is pending")

    replayed = create_order.sync_detailed(client=client, body=body, idempotency_key=key)
    check(replayed.content == created.content, "a replay answers the same bytes")
    check(replayed.headers.get("Idempotent-Replayed") == "true", "a replay says so")

    captured = update_order.sync(order.id, client=client, body=UpdateOrder(status=Target.CAPTURED))
    check(isinstance(captured, Order) and captured.status is OrderStatus.CAPTURED, "captured")

    payout_key = f"py-payout-{uuid.uuid4()}"
    payout = create_payout.sync(
        client=client,
        idempotency_key=payout_key,
        body=CreatePayout(
            amount=1200,
            currency=Currency.EUR,
            destination=BankAccount(account_holder="Ada Lovelace", iban="DE89370400440532013000"),
        ),
    )
    check(isinstance(payout, Payout), f"payout: {payout!r}")
    assert isinstance(payout, Payout)
    check(payout.status in (PayoutStatus.PENDING, PayoutStatus.IN_TRANSIT, PayoutStatus.PAID), "paying")
    check(payout.destination.iban.endswith("3000"), "the destination is typed")

    record = get_idempotency_key.sync(key, client=client)
    check(isinstance(record, KeyWithTimeline), f"key: {record!r}")
    assert isinstance(record, KeyWithTimeline)
    check(record.status is KeyRecordStatus.COMPLETED, "the key's request completed")

    other_body = CreateOrder(amount=9999, currency=Currency.EUR)
    reused = create_order.sync_detailed(client=client, body=other_body, idempotency_key=key)
    check(reused.status_code == 422, f"reuse: {reused.status_code}")
    refusal = reused.parsed
    check(isinstance(refusal, Error422), "a refusal is the body of a 422")
    assert isinstance(refusal, Error422)
    check(refusal.error.code == "idempotency_key_reused", refusal.error.code)
    print("python client: create, replay, capture, pay out, look up, 422: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
