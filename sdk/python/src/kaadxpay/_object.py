"""The base of every generated model: what the SDK adds to each result."""

from __future__ import annotations

from pydantic import BaseModel, Field


class KaadxpayObject(BaseModel):
    """An object the API answered, with what its answer said about the call.

    ``request_id`` is the answer's ``X-Request-Id``, ``replayed`` its ``Idempotent-Replayed``
    and ``idempotency_key`` the key the call sent (an object that has its own
    ``idempotency_key``, such as a payout, keeps the API's value: the key it was made with).
    None of the three is part of the object's JSON.
    """

    request_id: str | None = Field(default=None, exclude=True, repr=False)
    replayed: bool = Field(default=False, exclude=True, repr=False)
    idempotency_key: str | None = Field(default=None, exclude=True, repr=False)
