// What every call shares: its key, the retry rules (API.md §14) and the reading of an answer.

import { APIConnectionError, APITimeoutError, KaadxpayError, errorClass } from "./errors.js";

export const VERSION = "0.1.0";
/** The first wait without Retry-After, in ms; it doubles on each retry up to MAX_BACKOFF. */
export const INITIAL_BACKOFF = 500;
export const MAX_BACKOFF = 8_000;
/** A Retry-After longer than this (ms) is waited for this long. */
export const MAX_RETRY_AFTER = 60_000;

/** What the SDK adds to every result: the answer's X-Request-Id, Idempotent-Replayed and the key sent. */
export interface CallFacts {
  requestId: string | null;
  replayed: boolean;
  idempotencyKey: string | null;
}

export type Result<T> = T & CallFacts;

/** Kaadxpay-Should-Retry when present; else 408, 409 idempotency_request_in_progress and 5xx. */
export function shouldRetry(status: number, code: string | null, header: string | null): boolean {
  if (header !== null) return header.trim().toLowerCase() === "true";
  return status === 408 || status >= 500 || (status === 409 && code === "idempotency_request_in_progress");
}

/** Milliseconds before retry number `retry` (0 first): Retry-After, else 0.5 s doubling to 8 s, jittered. */
export function waitBeforeRetry(retry: number, retryAfter: string | null): number {
  if (retryAfter !== null) {
    const seconds = Number(retryAfter);
    if (Number.isFinite(seconds)) return Math.min(Math.max(seconds * 1000, 0), MAX_RETRY_AFTER);
  }
  const backoff = Math.min(INITIAL_BACKOFF * 2 ** retry, MAX_BACKOFF);
  return backoff / 2 + Math.random() * (backoff / 2);
}

export function connectionError(error: unknown, key: string | null): APIConnectionError {
  const timedOut = error instanceof Error && (error.name === "TimeoutError" || error.name === "AbortError");
  const kind = timedOut ? APITimeoutError : APIConnectionError;
  return new kind(`No answer from Kaadxpay: ${String(error)}`, { idempotencyKey: key, shouldRetry: true });
}

/** The result of an answer, or the error it says. */
export async function read<T>(response: Response, key: string | null): Promise<Result<T> | KaadxpayError> {
  const requestId = response.headers.get("x-request-id");
  const replayed = response.headers.get("idempotent-replayed") === "true";
  const text = await response.text();
  if (response.status >= 400) {
    let detail: { code?: unknown; message?: unknown; param?: unknown } = {};
    try {
      const body: unknown = JSON.parse(text);
      if (typeof body === "object" && body !== null && "error" in body && typeof body.error === "object" && body.error !== null) {
        detail = body.error;
      }
    } catch {
      // not JSON: the status says it all
    }
    const code = typeof detail.code === "string" ? detail.code : null;
    const kind = errorClass(code, response.status);
    return new kind(typeof detail.message === "string" ? detail.message : response.statusText, {
      code,
      status: response.status,
      param: typeof detail.param === "string" ? detail.param : null,
      requestId,
      idempotencyKey: key,
      replayed,
      shouldRetry: shouldRetry(response.status, code, response.headers.get("kaadxpay-should-retry")),
    });
  }
  const body = JSON.parse(text) as T & Partial<CallFacts>;
  return Object.assign(body, {
    requestId,
    replayed,
    idempotencyKey: typeof body.idempotencyKey === "string" ? body.idempotencyKey : key,
  });
}
