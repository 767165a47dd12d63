"""What the sync and async clients share: a call described once, its key, the retry rules
(API.md §14) and the reading of an answer into a result or an error."""

from __future__ import annotations

import json
import random
import uuid
from dataclasses import dataclass, field
from typing import Any, Generic, Mapping, TypeVar

import httpx
from pydantic import BaseModel

from ._errors import APIConnectionError, APITimeoutError, KaadxpayError, error_class
from ._object import KaadxpayObject

T = TypeVar("T", bound=BaseModel)

VERSION = "0.1.0"
DEFAULT_BASE_URL = "http://127.0.0.1:3000"
#: The first wait without ``Retry-After``; it doubles on each retry up to ``MAX_BACKOFF``.
INITIAL_BACKOFF = 0.5
MAX_BACKOFF = 8.0
#: A ``Retry-After`` longer than this is waited for this long.
MAX_RETRY_AFTER = 60.0


@dataclass
class Call(Generic[T]):
    """One API call: its method, path, query, body and the model of its answer."""

    method: str
    path: str
    answer: type[T]
    body: dict[str, Any] | None = None
    query: dict[str, Any] = field(default_factory=dict)
    idempotency_key: str | None = None

    def key(self) -> str | None:
        """The call's key: the caller's, else a UUIDv4 made once for every attempt of a POST."""
        if self.idempotency_key is None and self.method == "POST":
            self.idempotency_key = str(uuid.uuid4())
        return self.idempotency_key

    def content(self) -> bytes | None:
        """The body's bytes, the same on every attempt (fields left as None are not sent)."""
        if self.body is None:
            return None
        return json.dumps({k: v for k, v in self.body.items() if v is not None}).encode()

    def params(self) -> dict[str, Any]:
        return {k: v for k, v in self.query.items() if v is not None}


class Attempts(Generic[T]):
    """The attempts of one call: what each sends (the same key and body every time), and after
    each what to do: return its result, raise its error, or wait this many seconds and retry."""

    def __init__(self, call: Call[T], api_key: str, base_url: str, max_retries: int) -> None:
        self.call = call
        self.key = call.key()
        self.max_retries = max_retries
        self.retry = 0
        self.request: dict[str, Any] = {
            "method": call.method,
            "url": base_url + call.path,
            "params": call.params(),
            "content": call.content(),
            "headers": headers(api_key, self.key),
        }

    def outcome(self, answer: httpx.Response | httpx.TransportError) -> T | KaadxpayError:
        if isinstance(answer, httpx.TransportError):
            return connection_error(answer, self.key)
        return read(answer, self.call, self.key)

    def wait(self, outcome: KaadxpayError, answer: httpx.Response | httpx.TransportError) -> float:
        """Seconds to wait before the next attempt; raises ``outcome`` when there is none."""
        if not outcome.should_retry or self.retry >= self.max_retries:
            raise outcome
        retry_after = answer.headers.get("retry-after") if isinstance(answer, httpx.Response) else None
        self.retry += 1
        return wait_before_retry(self.retry - 1, retry_after)


def headers(api_key: str, key: str | None) -> dict[str, str]:
    sent = {
        "Authorization": f"Bearer {api_key}",
        "Content-Type": "application/json",
        "User-Agent": f"kaadxpay-python/{VERSION}",
    }
    if key is not None:
        sent["Idempotency-Key"] = key
    return sent


def should_retry(status: int, code: str | None, header: str | None) -> bool:
    """``Kaadxpay-Should-Retry`` when present; else ``408``,
    ``409 idempotency_request_in_progress`` and ``5xx``."""
    if header is not None:
        return header.strip().lower() == "true"
    return status == 408 or status >= 500 or (status == 409 and code == "idempotency_request_in_progress")


def wait_before_retry(retry: int, retry_after: str | None) -> float:
    """Seconds to wait before retry number ``retry`` (0 for the first): ``Retry-After`` when
    given, else 0.5 s doubling to 8 s, a random part of it between half and all."""
    if retry_after is not None:
        try:
            return min(max(float(retry_after), 0.0), MAX_RETRY_AFTER)
        except ValueError:
            pass
    backoff = min(INITIAL_BACKOFF * 2**retry, MAX_BACKOFF)
    return random.uniform(backoff / 2, backoff)


def connection_error(error: httpx.TransportError, key: str | None) -> APIConnectionError:
    kind = APITimeoutError if isinstance(error, httpx.TimeoutException) else APIConnectionError
    return kind(f"No answer from Kaadxpay: {error!r}", idempotency_key=key, should_retry=True)


def read(response: httpx.Response, call: Call[T], key: str | None) -> T | KaadxpayError:
    """The call's result, or the error the answer says."""
    request_id = response.headers.get("x-request-id")
    replayed = response.headers.get("idempotent-replayed") == "true"
    if response.status_code >= 400:
        return error_from(response, key, request_id, replayed)
    result = call.answer.model_validate_json(response.content)
    if isinstance(result, KaadxpayObject):
        result.request_id = request_id
        result.replayed = replayed
        if result.idempotency_key is None:
            result.idempotency_key = key
    return result


def error_from(
    response: httpx.Response, key: str | None, request_id: str | None, replayed: bool
) -> KaadxpayError:
    detail: Mapping[str, Any] = {}
    try:
        body = response.json()
        if isinstance(body, dict) and isinstance(body.get("error"), dict):
            detail = body["error"]
    except ValueError:
        pass
    code = detail.get("code")
    code = code if isinstance(code, str) else None
    param = detail.get("param")
    status = response.status_code
    kind = error_class(code, status)
    return kind(
        str(detail.get("message") or response.reason_phrase),
        code=code,
        status=status,
        param=param if isinstance(param, str) else None,
        request_id=request_id,
        idempotency_key=key,
        replayed=replayed,
        should_retry=should_retry(status, code, response.headers.get("kaadxpay-should-retry")),
    )
