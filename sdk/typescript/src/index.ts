// Kaadxpay's official TypeScript SDK: `new Kaadxpay(apiKey, { baseUrl, maxRetries, timeout })`,
// its resources, every error class, and the types generated from the API's OpenAPI document.
// Every call goes through one loop: the call's key made once, the same body on every attempt,
// retried on no answer and on the errors that say so, waiting Retry-After or a jittered back-off.

import { randomUUID } from "node:crypto";

import { connectionError, read, waitBeforeRetry, VERSION, type Result } from "./core.js";
import { KaadxpayError } from "./errors.js";
import type { components } from "./schema.js";
import { Webhooks } from "./webhooks.js";

export * from "./errors.js";
export type { CallFacts, Result } from "./core.js";
export type { WebhookEvent, WebhookEventType } from "./webhooks.js";
export type { components, paths, webhooks } from "./schema.js";

type Schemas = components["schemas"];
export type Order = Schemas["Order"];
export type Payout = Schemas["Payout"];
export type ApiKey = Schemas["ApiKey"];
export type Balance = Schemas["Balance"];
export type BalanceTransaction = Schemas["BalanceTransaction"];
export type Refund = Schemas["Refund"];
export type RefundReason = Schemas["Reason"];
export type TopUp = Schemas["TopUp"];
export type FundingAccount = Schemas["FundingAccount"];
export type Endpoint = Schemas["Endpoint"];
export type EndpointWithSecret = Schemas["EndpointWithSecret"];
export type Event = Schemas["Event"];
export type EventWithDeliveries = Schemas["EventWithDeliveries"];
export type KeyWithTimeline = Schemas["KeyWithTimeline"];
export type LoggedRequest = Schemas["LoggedRequest"];
export type Deleted = Schemas["Deleted"];
export type Recovery = Schemas["Recovery"];
export type Currency = Schemas["Currency"];
export type EventType = Schemas["EventType"];

export interface ClientOptions {
  /** Where the API is; default http://127.0.0.1:3000. */
  baseUrl?: string;
  /** Retries after the first attempt; default 2. */
  maxRetries?: number;
  /** Per attempt, in milliseconds; default 30 000. */
  timeout?: number;
}

/** What every POST takes besides its body: the key, made once per call when left out. */
export interface Keyed {
  idempotencyKey?: string;
}

export interface ListParams {
  limit?: number;
  startingAfter?: string;
}

/** A statement item's `type` (API.md §13). */
export type BalanceTransactionType =
  | "order_captured"
  | "payout"
  | "payout_returned"
  | "refund"
  | "refund_returned"
  | "top_up"
  | "reservation"
  | "reservation_released";

/** A time range on `created_at`, both ends included (RFC 3339 text or a Date). */
export interface CreatedRange {
  gte?: string | Date;
  lte?: string | Date;
}

export interface BalanceTransactionListParams extends ListParams {
  currency?: Currency;
  type?: BalanceTransactionType;
  created?: CreatedRange;
}

const rfc3339 = (when: string | Date | undefined): string | undefined => (when instanceof Date ? when.toISOString() : when);

interface Call {
  method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
  path: string;
  body?: object;
  query?: Record<string, string | number | undefined>;
  idempotencyKey?: string | undefined;
}

const segment = encodeURIComponent;

/** A list that pages by itself: `for await (const order of client.orders.list())`. */
export class Pager<T> implements AsyncIterable<Result<T>> {
  constructor(
    private readonly fetchPage: (after: string | undefined) => Promise<{ data: T[]; has_more: boolean }>,
    private readonly startingAfter: string | undefined,
  ) {}

  async *[Symbol.asyncIterator](): AsyncIterator<Result<T>> {
    let after = this.startingAfter;
    for (;;) {
      const page = await this.fetchPage(after);
      for (const item of page.data) yield { ...item, requestId: null, replayed: false, idempotencyKey: null };
      const last = page.data.at(-1);
      if (!page.has_more || last === undefined) return;
      after = String((last as { id: unknown }).id);
    }
  }
}

abstract class Resource {
  constructor(protected readonly client: Kaadxpay) {}

  protected send<T>(call: Call): Promise<Result<T>> {
    return this.client.send<T>(call);
  }

  protected page<T>(path: string, params: ListParams, query: Record<string, string | number | undefined> = {}): Pager<T> {
    return new Pager<T>(
      (after) => this.send<{ data: T[]; has_more: boolean }>({ method: "GET", path, query: { ...query, limit: params.limit, starting_after: after } }),
      params.startingAfter,
    );
  }
}

export class Orders extends Resource {
  create(params: Schemas["CreateOrder"] & Keyed): Promise<Result<Order>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: "/v1/orders", body, idempotencyKey });
  }
  retrieve(id: string): Promise<Result<Order>> {
    return this.send({ method: "GET", path: `/v1/orders/${segment(id)}` });
  }
  list(params: ListParams = {}): Pager<Order> {
    return this.page("/v1/orders", params);
  }
  capture(id: string): Promise<Result<Order>> {
    return this.send({ method: "PUT", path: `/v1/orders/${segment(id)}`, body: { status: "captured" } });
  }
  cancel(id: string): Promise<Result<Order>> {
    return this.send({ method: "PUT", path: `/v1/orders/${segment(id)}`, body: { status: "cancelled" } });
  }
}

export class Payouts extends Resource {
  create(params: Schemas["CreatePayout"] & Keyed): Promise<Result<Payout>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: "/v1/payouts", body, idempotencyKey });
  }
  retrieve(id: string): Promise<Result<Payout>> {
    return this.send({ method: "GET", path: `/v1/payouts/${segment(id)}` });
  }
  list(params: ListParams = {}): Pager<Payout> {
    return this.page("/v1/payouts", params);
  }
  cancel(id: string, params: Keyed = {}): Promise<Result<Payout>> {
    return this.send({ method: "POST", path: `/v1/payouts/${segment(id)}/cancel`, body: {}, idempotencyKey: params.idempotencyKey });
  }
}

export class BalanceResource extends Resource {
  retrieve(): Promise<Result<Balance>> {
    return this.send({ method: "GET", path: "/v1/balance" });
  }
}

export class BalanceTransactions extends Resource {
  /** The statement, newest first (API.md §13). */
  list(params: BalanceTransactionListParams = {}): Pager<BalanceTransaction> {
    return this.page("/v1/balance-transactions", params, {
      currency: params.currency,
      type: params.type,
      "created[gte]": rfc3339(params.created?.gte),
      "created[lte]": rfc3339(params.created?.lte),
    });
  }
}

export class Refunds extends Resource {
  /** Refunds `amount` of a captured order (by default, what is left to refund). */
  create(order: string, params: Schemas["RefundParameters"] & Keyed): Promise<Result<Refund>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: `/v1/orders/${segment(order)}/refunds`, body, idempotencyKey });
  }
  retrieve(id: string): Promise<Result<Refund>> {
    return this.send({ method: "GET", path: `/v1/refunds/${segment(id)}` });
  }
  list(params: ListParams & { order?: string } = {}): Pager<Refund> {
    return this.page("/v1/refunds", params, { order: params.order });
  }
}

export class TopUps extends Resource {
  retrieve(id: string): Promise<Result<TopUp>> {
    return this.send({ method: "GET", path: `/v1/top-ups/${segment(id)}` });
  }
  list(params: ListParams = {}): Pager<TopUp> {
    return this.page("/v1/top-ups", params);
  }
}

export class FundingAccountResource extends Resource {
  /** Where a transfer with its reference becomes a top-up. */
  retrieve(): Promise<Result<FundingAccount>> {
    return this.send({ method: "GET", path: "/v1/funding-account" });
  }
}

export class ApiKeys extends Resource {
  create(params: Schemas["NewKey"] & Keyed): Promise<Result<ApiKey>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: "/v1/api-keys", body, idempotencyKey });
  }
  retrieve(id: string): Promise<Result<ApiKey>> {
    return this.send({ method: "GET", path: `/v1/api-keys/${segment(id)}` });
  }
  list(params: ListParams = {}): Pager<ApiKey> {
    return this.page("/v1/api-keys", params);
  }
  roll(id: string, params: Schemas["RollParameters"] & Keyed): Promise<Result<ApiKey>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: `/v1/api-keys/${segment(id)}/roll`, body, idempotencyKey });
  }
  revoke(id: string): Promise<Result<ApiKey>> {
    return this.send({ method: "DELETE", path: `/v1/api-keys/${segment(id)}` });
  }
}

export class WebhookEndpoints extends Resource {
  create(params: Schemas["CreateEndpoint"] & Keyed): Promise<Result<EndpointWithSecret>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: "/v1/webhook-endpoints", body, idempotencyKey });
  }
  retrieve(id: string): Promise<Result<Endpoint>> {
    return this.send({ method: "GET", path: `/v1/webhook-endpoints/${segment(id)}` });
  }
  list(params: ListParams = {}): Pager<Endpoint> {
    return this.page("/v1/webhook-endpoints", params);
  }
  update(id: string, params: Schemas["UpdateEndpoint"]): Promise<Result<Endpoint>> {
    return this.send({ method: "PATCH", path: `/v1/webhook-endpoints/${segment(id)}`, body: params });
  }
  delete(id: string): Promise<Result<Deleted>> {
    return this.send({ method: "DELETE", path: `/v1/webhook-endpoints/${segment(id)}` });
  }
  rotateSecret(id: string, params: Schemas["RotateSecretBody"] & Keyed): Promise<Result<EndpointWithSecret>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: `/v1/webhook-endpoints/${segment(id)}/rotate-secret`, body, idempotencyKey });
  }
  recover(id: string, params: Schemas["RecoverBody"] & Keyed): Promise<Result<Recovery>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: `/v1/webhook-endpoints/${segment(id)}/recover`, body, idempotencyKey });
  }
  test(id: string, params: Schemas["SendTestEventBody"] & Keyed): Promise<Result<EventWithDeliveries>> {
    const { idempotencyKey, ...body } = params;
    return this.send({ method: "POST", path: `/v1/webhook-endpoints/${segment(id)}/test`, body, idempotencyKey });
  }
}

export class Events extends Resource {
  retrieve(id: string): Promise<Result<EventWithDeliveries>> {
    return this.send({ method: "GET", path: `/v1/events/${segment(id)}` });
  }
  list(params: ListParams = {}): Pager<Event> {
    return this.page("/v1/events", params);
  }
  redeliver(id: string, params: Keyed = {}): Promise<Result<EventWithDeliveries>> {
    return this.send({ method: "POST", path: `/v1/events/${segment(id)}/redeliver`, body: {}, idempotencyKey: params.idempotencyKey });
  }
}

export class IdempotencyKeys extends Resource {
  retrieve(key: string): Promise<Result<KeyWithTimeline>> {
    return this.send({ method: "GET", path: `/v1/idempotency-keys/${segment(key)}` });
  }
}

export class Requests extends Resource {
  retrieve(id: string): Promise<Result<LoggedRequest>> {
    return this.send({ method: "GET", path: `/v1/requests/${segment(id)}` });
  }
  list(params: ListParams & { idempotencyKey?: string; status?: number; route?: string } = {}): Pager<LoggedRequest> {
    return this.page("/v1/requests", params, { idempotency_key: params.idempotencyKey, status: params.status, route: params.route });
  }
}

export class Kaadxpay {
  readonly orders = new Orders(this);
  readonly payouts = new Payouts(this);
  readonly balance = new BalanceResource(this);
  readonly balanceTransactions = new BalanceTransactions(this);
  readonly refunds = new Refunds(this);
  readonly topUps = new TopUps(this);
  readonly fundingAccount = new FundingAccountResource(this);
  readonly apiKeys = new ApiKeys(this);
  readonly webhookEndpoints = new WebhookEndpoints(this);
  readonly events = new Events(this);
  readonly idempotencyKeys = new IdempotencyKeys(this);
  readonly requests = new Requests(this);
  readonly webhooks = new Webhooks();
  private readonly baseUrl: string;
  private readonly maxRetries: number;
  private readonly timeout: number;

  constructor(private readonly apiKey: string, options: ClientOptions = {}) {
    this.baseUrl = (options.baseUrl ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
    this.maxRetries = options.maxRetries ?? 2;
    this.timeout = options.timeout ?? 30_000;
  }

  /** One call, retried as API.md §14 says. */
  async send<T>(call: Call): Promise<Result<T>> {
    const key = call.idempotencyKey ?? (call.method === "POST" ? randomUUID() : null);
    const body = call.body === undefined ? undefined : JSON.stringify(call.body);
    const url = new URL(this.baseUrl + call.path);
    for (const [name, value] of Object.entries(call.query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, String(value));
    }
    const headers: Record<string, string> = {
      Authorization: `Bearer ${this.apiKey}`,
      "Content-Type": "application/json",
      "User-Agent": `kaadxpay-node/${VERSION}`,
    };
    if (key !== null) headers["Idempotency-Key"] = key;
    for (let retry = 0; ; retry++) {
      let outcome: Result<T> | KaadxpayError;
      let retryAfter: string | null = null;
      try {
        const response = await fetch(url, { method: call.method, headers, body, signal: AbortSignal.timeout(this.timeout) });
        retryAfter = response.headers.get("retry-after");
        outcome = await read<T>(response, key);
      } catch (error) {
        outcome = connectionError(error, key);
      }
      if (!(outcome instanceof KaadxpayError)) return outcome;
      if (!outcome.shouldRetry || retry >= this.maxRetries) throw outcome;
      await new Promise((resolve) => setTimeout(resolve, waitBeforeRetry(retry, retryAfter)));
    }
  }
}

export default Kaadxpay;
