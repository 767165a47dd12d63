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
export declare class KaadxpayError extends Error {
    readonly code: string | null;
    readonly status: number | null;
    readonly param: string | null;
    readonly requestId: string | null;
    readonly idempotencyKey: string | null;
    readonly replayed: boolean;
    readonly shouldRetry: boolean;
    constructor(message: string, facts?: ErrorFacts);
}
/** No answer came: the connection failed or broke, or the attempt timed out. */
export declare class APIConnectionError extends KaadxpayError {
}
/** An attempt took longer than the client's timeout. */
export declare class APITimeoutError extends APIConnectionError {
}
/** 400, 405, 413: the request is wrong; `param` names the field at fault. */
export declare class InvalidRequestError extends KaadxpayError {
}
/** 401 unauthorized. */
export declare class AuthenticationError extends KaadxpayError {
}
/** 402 insufficient_funds: definitive for its key. */
export declare class InsufficientFundsError extends KaadxpayError {
}
/** 403 forbidden. */
export declare class PermissionDeniedError extends KaadxpayError {
}
/** 404 resource_missing. */
export declare class ResourceMissingError extends KaadxpayError {
}
/** 408 request_timeout (retried). */
export declare class RequestTimeoutError extends KaadxpayError {
}
/** 409 idempotency_request_in_progress (retried). */
export declare class RequestInProgressError extends KaadxpayError {
}
/** 409 invalid_state_transition. */
export declare class InvalidStateTransitionError extends KaadxpayError {
}
/** 409 amount_exceeds_refundable: more than is left to refund of the order; `param` is `amount`. */
export declare class AmountExceedsRefundableError extends KaadxpayError {
}
/** 422 idempotency_key_reused. */
export declare class IdempotencyKeyReusedError extends KaadxpayError {
}
/** 500 and any other 5xx (retried). */
export declare class InternalServerError extends KaadxpayError {
}
/** 503 service_unavailable (retried after Retry-After). */
export declare class ServiceUnavailableError extends KaadxpayError {
}
/** A webhook whose signature, timestamp or body cannot be trusted. */
export declare class SignatureVerificationError extends KaadxpayError {
}
/** The class of an error answer: by its code, else by its status. */
export declare function errorClass(code: string | null, status: number): new (message: string, facts: ErrorFacts) => KaadxpayError;
