import { type Result } from "./core.js";
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
export type BalanceTransactionType = "order_captured" | "payout" | "payout_returned" | "refund" | "refund_returned" | "top_up" | "reservation" | "reservation_released";
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
interface Call {
    method: "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
    path: string;
    body?: object;
    query?: Record<string, string | number | undefined>;
    idempotencyKey?: string | undefined;
}
/** A list that pages by itself: `for await (const order of client.orders.list())`. */
export declare class Pager<T> implements AsyncIterable<Result<T>> {
    private readonly fetchPage;
    private readonly startingAfter;
    constructor(fetchPage: (after: string | undefined) => Promise<{
        data: T[];
        has_more: boolean;
    }>, startingAfter: string | undefined);
    [Symbol.asyncIterator](): AsyncIterator<Result<T>>;
}
declare abstract class Resource {
    protected readonly client: Kaadxpay;
    constructor(client: Kaadxpay);
    protected send<T>(call: Call): Promise<Result<T>>;
    protected page<T>(path: string, params: ListParams, query?: Record<string, string | number | undefined>): Pager<T>;
}
export declare class Orders extends Resource {
    create(params: Schemas["CreateOrder"] & Keyed): Promise<Result<Order>>;
    retrieve(id: string): Promise<Result<Order>>;
    list(params?: ListParams): Pager<Order>;
    capture(id: string): Promise<Result<Order>>;
    cancel(id: string): Promise<Result<Order>>;
}
export declare class Payouts extends Resource {
    create(params: Schemas["CreatePayout"] & Keyed): Promise<Result<Payout>>;
    retrieve(id: string): Promise<Result<Payout>>;
    list(params?: ListParams): Pager<Payout>;
    cancel(id: string, params?: Keyed): Promise<Result<Payout>>;
}
export declare class BalanceResource extends Resource {
    retrieve(): Promise<Result<Balance>>;
}
export declare class BalanceTransactions extends Resource {
    /** The statement, newest first (API.md §13). */
    list(params?: BalanceTransactionListParams): Pager<BalanceTransaction>;
}
export declare class Refunds extends Resource {
    /** Refunds `amount` of a captured order (by default, what is left to refund). */
    create(order: string, params: Schemas["RefundParameters"] & Keyed): Promise<Result<Refund>>;
    retrieve(id: string): Promise<Result<Refund>>;
    list(params?: ListParams & {
        order?: string;
    }): Pager<Refund>;
}
export declare class TopUps extends Resource {
    retrieve(id: string): Promise<Result<TopUp>>;
    list(params?: ListParams): Pager<TopUp>;
}
export declare class FundingAccountResource extends Resource {
    /** Where a transfer with its reference becomes a top-up. */
    retrieve(): Promise<Result<FundingAccount>>;
}
export declare class ApiKeys extends Resource {
    create(params: Schemas["NewKey"] & Keyed): Promise<Result<ApiKey>>;
    retrieve(id: string): Promise<Result<ApiKey>>;
    list(params?: ListParams): Pager<ApiKey>;
    roll(id: string, params: Schemas["RollParameters"] & Keyed): Promise<Result<ApiKey>>;
    revoke(id: string): Promise<Result<ApiKey>>;
}
export declare class WebhookEndpoints extends Resource {
    create(params: Schemas["CreateEndpoint"] & Keyed): Promise<Result<EndpointWithSecret>>;
    retrieve(id: string): Promise<Result<Endpoint>>;
    list(params?: ListParams): Pager<Endpoint>;
    update(id: string, params: Schemas["UpdateEndpoint"]): Promise<Result<Endpoint>>;
    delete(id: string): Promise<Result<Deleted>>;
    rotateSecret(id: string, params: Schemas["RotateSecretBody"] & Keyed): Promise<Result<EndpointWithSecret>>;
    recover(id: string, params: Schemas["RecoverBody"] & Keyed): Promise<Result<Recovery>>;
    test(id: string, params: Schemas["SendTestEventBody"] & Keyed): Promise<Result<EventWithDeliveries>>;
}
export declare class Events extends Resource {
    retrieve(id: string): Promise<Result<EventWithDeliveries>>;
    list(params?: ListParams): Pager<Event>;
    redeliver(id: string, params?: Keyed): Promise<Result<EventWithDeliveries>>;
}
export declare class IdempotencyKeys extends Resource {
    retrieve(key: string): Promise<Result<KeyWithTimeline>>;
}
export declare class Requests extends Resource {
    retrieve(id: string): Promise<Result<LoggedRequest>>;
    list(params?: ListParams & {
        idempotencyKey?: string;
        status?: number;
        route?: string;
    }): Pager<LoggedRequest>;
}
export declare class Kaadxpay {
    private readonly apiKey;
    readonly orders: Orders;
    readonly payouts: Payouts;
    readonly balance: BalanceResource;
    readonly balanceTransactions: BalanceTransactions;
    readonly refunds: Refunds;
    readonly topUps: TopUps;
    readonly fundingAccount: FundingAccountResource;
    readonly apiKeys: ApiKeys;
    readonly webhookEndpoints: WebhookEndpoints;
    readonly events: Events;
    readonly idempotencyKeys: IdempotencyKeys;
    readonly requests: Requests;
    readonly webhooks: Webhooks;
    private readonly baseUrl;
    private readonly maxRetries;
    private readonly timeout;
    constructor(apiKey: string, options?: ClientOptions);
    /** One call, retried as API.md §14 says. */
    send<T>(call: Call): Promise<Result<T>>;
}
export default Kaadxpay;
