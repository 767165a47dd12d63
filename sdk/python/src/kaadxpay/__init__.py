"""Kaadxpay's official Python SDK: ``Kaadxpay`` and ``AsyncKaadxpay``, every error class, and
the models generated from the API's OpenAPI document (``kaadxpay.models``)."""

from ._client import AsyncKaadxpay, BalanceTransactionType, BankAccountParams, CreatedRange, Kaadxpay, RefundReason
from ._errors import (
    AmountExceedsRefundableError,
    APIConnectionError,
    APITimeoutError,
    AuthenticationError,
    IdempotencyKeyReusedError,
    InsufficientFundsError,
    InternalServerError,
    InvalidRequestError,
    InvalidStateTransitionError,
    KaadxpayError,
    PermissionDeniedError,
    RequestInProgressError,
    RequestTimeoutError,
    ResourceMissingError,
    ServiceUnavailableError,
    SignatureVerificationError,
)
from ._pagination import AsyncPager, Pager
from .models import WebhookEvent

__all__ = [
    "AmountExceedsRefundableError",
    "APIConnectionError",
    "APITimeoutError",
    "AsyncKaadxpay",
    "AsyncPager",
    "AuthenticationError",
    "BalanceTransactionType",
    "BankAccountParams",
    "CreatedRange",
    "IdempotencyKeyReusedError",
    "InsufficientFundsError",
    "InternalServerError",
    "InvalidRequestError",
    "InvalidStateTransitionError",
    "Kaadxpay",
    "KaadxpayError",
    "Pager",
    "PermissionDeniedError",
    "RefundReason",
    "RequestInProgressError",
    "RequestTimeoutError",
    "ResourceMissingError",
    "ServiceUnavailableError",
    "SignatureVerificationError",
    "WebhookEvent",
]
