"""Mistakes an integrator could make: each line marked ``# error`` must fail ``mypy --strict``
(the SDK's tests check that every marked line, and no other, is reported)."""

from __future__ import annotations

import kaadxpay

client = kaadxpay.Kaadxpay("sk_test_x")
client.orders.create(amount="1000", currency="EUR")  # error: a string amount
client.orders.create(amount=1000, currency="EURO")  # error: an unknown currency
client.orders.create(amount=1000, currency="EUR", colour="red")  # error: an unknown field
client.payouts.create(amount=1, currency="EUR", destination={"account_holder": "A", "iban": "X", "bic": "Y"})  # error: an unknown destination field
order = client.orders.retrieve("ord_1")
print(order.amout)  # error: a misspelt attribute
status: int = order.status  # error: a status is one of its strings
client.webhook_endpoints.test("whe_1", event_type="order.shipped")  # error: an unknown event type
event = client.webhooks.construct_event(b"", {}, "whsec_x")
print(event.data.object.destination)  # error: an order has no destination
client.balance_transactions.list(type="captured")  # error: an unknown statement item type
client.balance_transactions.list(created={"after": "2026-01-01T00:00:00Z"})  # error: a range has gte and lte
client.refunds.create("ord_1", amount="300", destination={"account_holder": "A", "iban": "X"})  # error: a string amount
client.refunds.create("ord_1", destination={"account_holder": "A", "iban": "X"}, reason="changed_mind")  # error: an unknown reason
print(client.top_ups.retrieve("tu_1").reference)  # error: a top-up has no reference
