"""Webhook verification (Standard Webhooks, API.md §5): the signature over
``{webhook-id}.{webhook-timestamp}.{body}``, HMAC-SHA256 keyed with the secret's base64 part,
any of several secrets during a rotation, and a timestamp within a tolerance."""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import time
from typing import Mapping, Sequence

from pydantic import TypeAdapter, ValidationError

from ._errors import SignatureVerificationError
from .models import WebhookEvent

#: How far a delivery's timestamp may be from now, in seconds.
DEFAULT_TOLERANCE = 300

_EVENT: TypeAdapter[WebhookEvent] = TypeAdapter(WebhookEvent)


def _key(secret: str) -> bytes:
    try:
        return base64.b64decode(secret.removeprefix("whsec_"), validate=True)
    except binascii.Error as error:
        raise SignatureVerificationError("The webhook secret is not `whsec_` and base64.") from error


class Webhooks:
    """``client.webhooks``: verifying and reading what an endpoint receives."""

    def construct_event(
        self,
        payload: bytes | str,
        headers: Mapping[str, str],
        secret: str | Sequence[str],
        *,
        tolerance: int = DEFAULT_TOLERANCE,
    ) -> WebhookEvent:
        """The event of a delivery, typed by its ``event_type``, once its signature is verified
        with ``secret`` (or any of several secrets during a rotation); else
        ``SignatureVerificationError``. ``payload`` is the raw body, as received."""
        body = payload.encode() if isinstance(payload, str) else payload
        lower = {name.lower(): value for name, value in headers.items()}
        webhook_id = lower.get("webhook-id")
        timestamp = lower.get("webhook-timestamp")
        signatures = lower.get("webhook-signature")
        if not webhook_id or not timestamp or not signatures:
            raise SignatureVerificationError("The delivery lacks its webhook-id, -timestamp or -signature header.")
        try:
            signed_at = int(timestamp)
        except ValueError as error:
            raise SignatureVerificationError("The webhook-timestamp is not a number.") from error
        if abs(time.time() - signed_at) > tolerance:
            raise SignatureVerificationError("The webhook-timestamp is too old or too new.")
        signed = f"{webhook_id}.{timestamp}.".encode() + body
        secrets = [secret] if isinstance(secret, str) else list(secret)
        expected = [
            base64.b64encode(hmac.new(_key(one), signed, hashlib.sha256).digest()).decode() for one in secrets
        ]
        offered = [part.split(",", 1)[1] for part in signatures.split() if part.startswith("v1,")]
        if not any(hmac.compare_digest(mine, theirs) for mine in expected for theirs in offered):
            raise SignatureVerificationError("No signature matches the secret.")
        try:
            return _EVENT.validate_json(body)
        except ValidationError as error:
            raise SignatureVerificationError(f"The signed body is not a known event: {error}") from error
