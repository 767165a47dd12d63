// Kaadxpay's official TypeScript SDK: `new Kaadxpay(apiKey, { baseUrl, maxRetries, timeout })`,
// its resources, every error class, and the types generated from the API's OpenAPI document.
// Every call goes through one loop: the call's key made once, the same body on every attempt,
// retried on no answer and on the errors that say so, waiting Retry-After or a jittered back-off.
import { randomUUID } from "node:crypto";
import { connectionError, read, waitBeforeRetry, VERSION } from "./core.js";
import { KaadxpayError } from "./errors.js";
import { Webhooks } from "./webhooks.js";
export * from "./errors.js";
const rfc3339 = (when) => (when instanceof Date ? when.toISOString() : when);
const segment = encodeURIComponent;
/** A list that pages by itself: `for await (const order of client.orders.list())`. */
export class Pager {
    fetchPage;
    startingAfter;
    constructor(fetchPage, startingAfter) {
        this.fetchPage = fetchPage;
        this.startingAfter = startingAfter;
    }
    async *[Symbol.asyncIterator]() {
        let after = this.startingAfter;
        for (;;) {
            const page = await this.fetchPage(after);
            for (const item of page.data)
                yield { ...item, requestId: null, replayed: false, idempotencyKey: null };
            const last = page.data.at(-1);
            if (!page.has_more || last === undefined)
                return;
            after = String(last.id);
        }
    }
}
class Resource {
    client;
    constructor(client) {
        this.client = client;
    }
    send(call) {
        return this.client.send(call);
    }
    page(path, params, query = {}) {
        return new Pager((after) => this.send({ method: "GET", path, query: { ...query, limit: params.limit, starting_after: after } }), params.startingAfter);
    }
}
export class Orders extends Resource {
    create(params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: "/v1/orders", body, idempotencyKey });
    }
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/orders/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/orders", params);
    }
    capture(id) {
        return this.send({ method: "PUT", path: `/v1/orders/${segment(id)}`, body: { status: "captured" } });
    }
    cancel(id) {
        return this.send({ method: "PUT", path: `/v1/orders/${segment(id)}`, body: { status: "cancelled" } });
    }
}
export class Payouts extends Resource {
    create(params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: "/v1/payouts", body, idempotencyKey });
    }
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/payouts/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/payouts", params);
    }
    cancel(id, params = {}) {
        return this.send({ method: "POST", path: `/v1/payouts/${segment(id)}/cancel`, body: {}, idempotencyKey: params.idempotencyKey });
    }
}
export class BalanceResource extends Resource {
    retrieve() {
        return this.send({ method: "GET", path: "/v1/balance" });
    }
}
export class BalanceTransactions extends Resource {
    /** The statement, newest first (API.md §13). */
    list(params = {}) {
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
    create(order, params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: `/v1/orders/${segment(order)}/refunds`, body, idempotencyKey });
    }
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/refunds/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/refunds", params, { order: params.order });
    }
}
export class TopUps extends Resource {
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/top-ups/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/top-ups", params);
    }
}
export class FundingAccountResource extends Resource {
    /** Where a transfer with its reference becomes a top-up. */
    retrieve() {
        return this.send({ method: "GET", path: "/v1/funding-account" });
    }
}
export class ApiKeys extends Resource {
    create(params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: "/v1/api-keys", body, idempotencyKey });
    }
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/api-keys/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/api-keys", params);
    }
    roll(id, params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: `/v1/api-keys/${segment(id)}/roll`, body, idempotencyKey });
    }
    revoke(id) {
        return this.send({ method: "DELETE", path: `/v1/api-keys/${segment(id)}` });
    }
}
export class WebhookEndpoints extends Resource {
    create(params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: "/v1/webhook-endpoints", body, idempotencyKey });
    }
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/webhook-endpoints/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/webhook-endpoints", params);
    }
    update(id, params) {
        return this.send({ method: "PATCH", path: `/v1/webhook-endpoints/${segment(id)}`, body: params });
    }
    delete(id) {
        return this.send({ method: "DELETE", path: `/v1/webhook-endpoints/${segment(id)}` });
    }
    rotateSecret(id, params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: `/v1/webhook-endpoints/${segment(id)}/rotate-secret`, body, idempotencyKey });
    }
    recover(id, params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: `/v1/webhook-endpoints/${segment(id)}/recover`, body, idempotencyKey });
    }
    test(id, params) {
        const { idempotencyKey, ...body } = params;
        return this.send({ method: "POST", path: `/v1/webhook-endpoints/${segment(id)}/test`, body, idempotencyKey });
    }
}
export class Events extends Resource {
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/events/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/events", params);
    }
    redeliver(id, params = {}) {
        return this.send({ method: "POST", path: `/v1/events/${segment(id)}/redeliver`, body: {}, idempotencyKey: params.idempotencyKey });
    }
}
export class IdempotencyKeys extends Resource {
    retrieve(key) {
        return this.send({ method: "GET", path: `/v1/idempotency-keys/${segment(key)}` });
    }
}
export class Requests extends Resource {
    retrieve(id) {
        return this.send({ method: "GET", path: `/v1/requests/${segment(id)}` });
    }
    list(params = {}) {
        return this.page("/v1/requests", params, { idempotency_key: params.idempotencyKey, status: params.status, route: params.route });
    }
}
export class Kaadxpay {
    apiKey;
    orders = new Orders(this);
    payouts = new Payouts(this);
    balance = new BalanceResource(this);
    balanceTransactions = new BalanceTransactions(this);
    refunds = new Refunds(this);
    topUps = new TopUps(this);
    fundingAccount = new FundingAccountResource(this);
    apiKeys = new ApiKeys(this);
    webhookEndpoints = new WebhookEndpoints(this);
    events = new Events(this);
    idempotencyKeys = new IdempotencyKeys(this);
    requests = new Requests(this);
    webhooks = new Webhooks();
    baseUrl;
    maxRetries;
    timeout;
    constructor(apiKey, options = {}) {
        this.apiKey = apiKey;
        this.baseUrl = (options.baseUrl ?? "http://127.0.0.1:3000").replace(/\/+$/, "");
        this.maxRetries = options.maxRetries ?? 2;
        this.timeout = options.timeout ?? 30_000;
    }
    /** One call, retried as API.md §14 says. */
    async send(call) {
        const key = call.idempotencyKey ?? (call.method === "POST" ? randomUUID() : null);
        const body = call.body === undefined ? undefined : JSON.stringify(call.body);
        const url = new URL(this.baseUrl + call.path);
        for (const [name, value] of Object.entries(call.query ?? {})) {
            if (value !== undefined)
                url.searchParams.set(name, String(value));
        }
        const headers = {
            Authorization: `Bearer ${this.apiKey}`,
            "Content-Type": "application/json",
            "User-Agent": `kaadxpay-node/${VERSION}`,
        };
        if (key !== null)
            headers["Idempotency-Key"] = key;
        for (let retry = 0;; retry++) {
            let outcome;
            let retryAfter = null;
            try {
                const response = await fetch(url, { method: call.method, headers, body, signal: AbortSignal.timeout(this.timeout) });
                retryAfter = response.headers.get("retry-after");
                outcome = await read(response, key);
            }
            catch (error) {
                outcome = connectionError(error, key);
            }
            if (!(outcome instanceof KaadxpayError))
                return outcome;
            if (!outcome.shouldRetry || retry >= this.maxRetries)
                throw outcome;
            await new Promise((resolve) => setTimeout(resolve, waitBeforeRetry(retry, retryAfter)));
        }
    }
}
export default Kaadxpay;
