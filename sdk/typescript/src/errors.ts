// The errors the SDK throws: one class per error code under KaadxpayError.

export interface ErrorFacts {
  code?: string | null;
  status?: number | null;
  param?: string | null;
  requestId?: string | null;
  idempotencyKey?: string | null;
  replayed?: boolean;
  shouldRetry?: boolean;
}

/** An error answer (or no answer at all, for APIConnectionError). */
export class KaadxpayError extends Error {
  readonly code: string | null;
  readonly status: number | null;
  readonly param: string | null;
  readonly requestId: string | null;
  readonly idempotencyKey: string | null;
  readonly replayed: boolean;
  readonly shouldRetry: boolean;

  constructor(message: string, facts: ErrorFacts = {}) {
    super(message);
    this.name = new.target.name;
    this.code = facts.code ?? null;
    this.status = facts.status ?? null;
    this.param = facts.param ?? null;
    this.requestId = facts.requestId ?? null;
    this.idempotencyKey = facts.idempotencyKey ?? null;
    this.replayed = facts.replayed ?? false;
    this.shouldRetry = facts.shouldRetry ?? false;
  }
}

/** No answer came: the connection failed or broke, or the attempt timed out. */
export class APIConnectionError extends KaadxpayError {}
/** An attempt took longer than the client's timeout. */
export class APITimeoutError extends APIConnectionError {}
/** 400, 405, 413: the request is wrong; `param` names the field at fault. */
export class InvalidRequestError extends KaadxpayError {}
/** 401 unauthorized. */
export class AuthenticationError extends KaadxpayError {}
/** 402 insufficient_funds: definitive for its key. */
export class InsufficientFundsError extends KaadxpayError {}
/** 403 forbidden. */
export class PermissionDeniedError extends KaadxpayError {}
/** 404 resource_missing. */
export class ResourceMissingError extends KaadxpayError {}
/** 408 request_timeout (retried). */
export class RequestTimeoutError extends KaadxpayError {}
/** 409 idempotency_request_in_progress (retried). */
export class RequestInProgressError extends KaadxpayError {}
/** 409 invalid_state_transition. */
export class InvalidStateTransitionError extends KaadxpayError {}
/** 409 amount_exceeds_refundable: more than is left to refund of the order; `param` is `amount`. */
export class AmountExceedsRefundableError extends KaadxpayError {}
/** 422 idempotency_key_reused. */
export class IdempotencyKeyReusedError extends KaadxpayError {}
/** 500 and any other 5xx (retried). */
export class InternalServerError extends KaadxpayError {}
/** 503 service_unavailable (retried after Retry-After). */
export class ServiceUnavailableError extends KaadxpayError {}
/** A webhook whose signature, timestamp or body cannot be trusted. */
export class SignatureVerificationError extends KaadxpayError {}

const BY_CODE: Record<string, new (message: string, facts: ErrorFacts) => KaadxpayError> = {
  invalid_request: InvalidRequestError,
  idempotency_key_missing: InvalidRequestError,
  idempotency_key_invalid: InvalidRequestError,
  method_not_allowed: InvalidRequestError,
  request_too_large: InvalidRequestError,
  unauthorized: AuthenticationError,
  insufficient_funds: InsufficientFundsError,
  forbidden: PermissionDeniedError,
  resource_missing: ResourceMissingError,
  request_timeout: RequestTimeoutError,
  idempotency_request_in_progress: RequestInProgressError,
  invalid_state_transition: InvalidStateTransitionError,
  amount_exceeds_refundable: AmountExceedsRefundableError,
  idempotency_key_reused: IdempotencyKeyReusedError,
  internal_error: InternalServerError,
  service_unavailable: ServiceUnavailableError,
};

/** The class of an error answer: by its code, else by its status. */
export function errorClass(code: string | null, status: number): new (message: string, facts: ErrorFacts) => KaadxpayError {
  const known = code === null ? undefined : BY_CODE[code];
  if (known !== undefined) return known;
  return status >= 500 ? InternalServerError : KaadxpayError;
}
