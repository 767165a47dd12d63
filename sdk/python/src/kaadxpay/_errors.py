"""The errors the SDK raises: one class per error code under ``KaadxpayError``."""

from __future__ import annotations


class KaadxpayError(Exception):
    """An error answer (or no answer at all, for ``APIConnectionError``)."""

    def __init__(
        self,
        message: str,
        *,
        code: str | None = None,
        status: int | None = None,
        param: str | None = None,
        request_id: str | None = None,
        idempotency_key: str | None = None,
        replayed: bool = False,
        should_retry: bool = False,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.code = code
        self.status = status
        self.param = param
        self.request_id = request_id
        self.idempotency_key = idempotency_key
        self.replayed = replayed
        self.should_retry = should_retry

    def __str__(self) -> str:
        where = f" (request {self.request_id})" if self.request_id else ""
        return f"{self.status or ''} {self.code or ''}: {self.message}{where}".strip()


class APIConnectionError(KaadxpayError):
    """No answer came: the connection failed or broke, or the attempt timed out."""


class APITimeoutError(APIConnectionError):
    """An attempt took longer than the client's timeout."""


class InvalidRequestError(KaadxpayError):
    """``400`` (``invalid_request``, ``idempotency_key_missing``, ``idempotency_key_invalid``),
    ``405`` and ``413``: the request is wrong; ``param`` names the field at fault."""


class AuthenticationError(KaadxpayError):
    """``401 unauthorized``: no valid API key."""


class InsufficientFundsError(KaadxpayError):
    """``402 insufficient_funds``: definitive for its key (stored and replayed)."""


class PermissionDeniedError(KaadxpayError):
    """``403 forbidden``: the key may not do this."""


class ResourceMissingError(KaadxpayError):
    """``404 resource_missing``."""


class RequestTimeoutError(KaadxpayError):
    """``408 request_timeout``: the body arrived too slowly (retried)."""


class RequestInProgressError(KaadxpayError):
    """``409 idempotency_request_in_progress``: the key's first request still runs (retried)."""


class InvalidStateTransitionError(KaadxpayError):
    """``409 invalid_state_transition``: the object is not in a state that allows this."""


class AmountExceedsRefundableError(KaadxpayError):
    """``409 amount_exceeds_refundable``: more than is left to refund of the order (or nothing is
    left); ``param`` is ``amount``. Definitive for its key (stored and replayed)."""


class IdempotencyKeyReusedError(KaadxpayError):
    """``422 idempotency_key_reused``: the key was used with another body or endpoint."""


class InternalServerError(KaadxpayError):
    """``500 internal_error`` and any other ``5xx`` (retried)."""


class ServiceUnavailableError(KaadxpayError):
    """``503 service_unavailable`` (retried after ``Retry-After``)."""


class SignatureVerificationError(KaadxpayError):
    """A webhook whose signature, timestamp or body cannot be trusted."""


_BY_CODE: dict[str, type[KaadxpayError]] = {
    "invalid_request": InvalidRequestError,
    "idempotency_key_missing": InvalidRequestError,
    "idempotency_key_invalid": InvalidRequestError,
    "method_not_allowed": InvalidRequestError,
    "request_too_large": InvalidRequestError,
    "unauthorized": AuthenticationError,
    "insufficient_funds": InsufficientFundsError,
    "forbidden": PermissionDeniedError,
    "resource_missing": ResourceMissingError,
    "request_timeout": RequestTimeoutError,
    "idempotency_request_in_progress": RequestInProgressError,
    "invalid_state_transition": InvalidStateTransitionError,
    "amount_exceeds_refundable": AmountExceedsRefundableError,
    "idempotency_key_reused": IdempotencyKeyReusedError,
    "internal_error": InternalServerError,
    "service_unavailable": ServiceUnavailableError,
}


def error_class(code: str | None, status: int) -> type[KaadxpayError]:
    """The class of an error answer: by its code, else by its status."""
    if code in _BY_CODE:
        return _BY_CODE[code]
    if status >= 500:
        return InternalServerError
    return KaadxpayError
