"""The conformance suite's Python runner: makes each case of cases.json with the ``kaadxpay``
package through the fault proxy, and writes what each call came back with to
``$KAADXPAY_CONFORMANCE_OUT`` (the cargo test in server/tests/integration/sdks/conformance.rs
runs the proxy and checks the answers and the effects on the server)."""

from __future__ import annotations

import json
import os
import sys
from typing import Any

import kaadxpay

LANGUAGE = "python"
DESTINATION: kaadxpay.BankAccountParams = {"account_holder": "Ada Lovelace", "iban": "DE89370400440532013000"}


def run(case: dict[str, Any], proxy: str, direct: str, api_key: str, max_retries: int) -> dict[str, Any]:
    name = case["name"]
    marker = f"conformance {LANGUAGE} {name}"
    callers_key = f"conformance-{LANGUAGE}-{name}" if case.get("callers_key") else None
    client = kaadxpay.Kaadxpay(api_key, base_url=f"{proxy}/{LANGUAGE}/{name}", max_retries=max_retries)
    setup = kaadxpay.Kaadxpay(api_key, base_url=direct)
    op, amount, currency = case["op"], case["amount"], case["currency"]
    outcome: dict[str, Any] = {"case": name, "result": None, "error": None, "first_error": None}

    def create_order(key: str | None) -> kaadxpay.models.Order:
        return client.orders.create(amount=amount, currency=currency, description=marker, idempotency_key=key)

    try:
        result: Any
        if op == "create_order":
            result = create_order(callers_key)
        elif op == "create_payout":
            result = client.payouts.create(
                amount=amount, currency=currency, destination=DESTINATION, description=marker, idempotency_key=callers_key
            )
        elif op == "capture_cancelled_order":
            order = setup.orders.create(amount=amount, currency=currency, description=marker)
            setup.orders.cancel(order.id)
            result = client.orders.capture(order.id)
        elif op == "create_order_with_a_used_key":
            setup.orders.create(amount=1, currency=currency, description="setup", idempotency_key=callers_key)
            result = create_order(callers_key)
        elif op == "create_order_again_with_the_errors_key":
            try:
                result = create_order(None)
            except kaadxpay.KaadxpayError as first:
                outcome["first_error"] = describe(first)
                result = create_order(first.idempotency_key)
        else:
            raise ValueError(f"unknown op {op}")
        outcome["result"] = {"id": result.id, "idempotency_key": result.idempotency_key, "replayed": result.replayed}
    except kaadxpay.KaadxpayError as error:
        outcome["error"] = describe(error)
    finally:
        client.close()
        setup.close()
    return outcome


def describe(error: kaadxpay.KaadxpayError) -> dict[str, Any]:
    return {
        "class": type(error).__name__,
        "status": error.status,
        "code": error.code,
        "idempotency_key": error.idempotency_key,
    }


def main() -> None:
    cases = json.load(open(os.environ["KAADXPAY_CONFORMANCE_CASES"]))["cases"]
    override = os.environ.get("KAADXPAY_CONFORMANCE_MAX_RETRIES")
    outcomes = [
        run(
            case,
            os.environ["KAADXPAY_CONFORMANCE_PROXY"],
            os.environ["KAADXPAY_CONFORMANCE_DIRECT"],
            os.environ["KAADXPAY_TEST_API_KEY"],
            int(override) if override else case["max_retries"],
        )
        for case in cases
    ]
    with open(os.environ["KAADXPAY_CONFORMANCE_OUT"], "w") as out:
        json.dump(outcomes, out)


if __name__ == "__main__":
    sys.exit(main())
