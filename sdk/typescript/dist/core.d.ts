import { APIConnectionError, KaadxpayError } from "./errors.js";
export declare const VERSION = "0.1.0";
/** The first wait without Retry-After, in ms; it doubles on each retry up to MAX_BACKOFF. */
export declare const INITIAL_BACKOFF = 500;
export declare const MAX_BACKOFF = 8000;
/** A Retry-After longer than this (ms) is waited for this long. */
export declare const MAX_RETRY_AFTER = 60000;
/** What the SDK adds to every result: the answer's X-Request-Id, Idempotent-Replayed and the key sent. */
export interface CallFacts {
    requestId: string | null;
    replayed: boolean;
    idempotencyKey: string | null;
}
export type Result<T> = T & CallFacts;
/** Kaadxpay-Should-Retry when present; else 408, 409 idempotency_request_in_progress and 5xx. */
export declare function shouldRetry(status: number, code: string | null, header: string | null): boolean;
/** Milliseconds before retry number `retry` (0 first): Retry-After, else 0.5 s doubling to 8 s, jittered. */
export declare function waitBeforeRetry(retry: number, retryAfter: string | null): number;
export declare function connectionError(error: unknown, key: string | null): APIConnectionError;
/** The result of an answer, or the error it says. */
export declare function read<T>(response: Response, key: string | null): Promise<Result<T> | KaadxpayError>;
