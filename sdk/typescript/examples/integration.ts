// An integration, as a merchant writes it: an order and a payout, each error handled, lists
// paged through, a webhook received, verified and read. It type-checks under tsc --strict
// --noUncheckedIndexedAccess with no cast, and the SDK's tests run it against a real server.
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";

import {
  APIConnectionError,
  AmountExceedsRefundableError,
  AuthenticationError,
  IdempotencyKeyReusedError,
  InsufficientFundsError,
  InternalServerError,
  InvalidRequestError,
  InvalidStateTransitionError,
  Kaadxpay,
  KaadxpayError,
  PermissionDeniedError,
  RequestInProgressError,
  RequestTimeoutError,
  ResourceMissingError,
  ServiceUnavailableError,
  SignatureVerificationError,
  type Payout,
  type Result,
  type WebhookEvent,
} from "kaadxpay";

/** What a merchant's code does about each error: every class the SDK throws. */
export function explain(error: KaadxpayError): string {
  if (error instanceof InsufficientFundsError) return `not enough money: wait for captures (request ${error.requestId})`;
  if (error instanceof InvalidRequestError) return `fix ${error.param}: ${error.message}`;
  if (error instanceof AuthenticationError) return "the API key is wrong or was revoked";
  if (error instanceof PermissionDeniedError) return "this key may not do that (a read-only key?)";
  if (error instanceof ResourceMissingError) return "no such object for this merchant";
  if (error instanceof InvalidStateTransitionError) return `the object moved already: ${error.message}`;
  if (error instanceof AmountExceedsRefundableError) return `less is left to refund: ${error.message}`;
  if (error instanceof IdempotencyKeyReusedError) return `key ${error.idempotencyKey} was used for another request: use a new key`;
  if (error instanceof RequestInProgressError) return `key ${error.idempotencyKey} is still being worked on: ask again later`;
  if (
    error instanceof ServiceUnavailableError ||
    error instanceof InternalServerError ||
    error instanceof RequestTimeoutError ||
    error instanceof APIConnectionError
  ) {
    // Retried already with the same key; the same call with that key later is still safe.
    return `try again later with key ${error.idempotencyKey}`;
  }
  if (error instanceof SignatureVerificationError) return "not from Kaadxpay: refused";
  return `${error.code}: ${error.message}`;
}

/** A payout, or null (saying why) when it was refused. */
export async function payOut(client: Kaadxpay, amount: number): Promise<Result<Payout> | null> {
  try {
    return await client.payouts.create({
      amount,
      currency: "EUR",
      destination: { account_holder: "Ada Lovelace", iban: "DE89370400440532013000" },
      description: "Weekly settlement",
    });
  } catch (error) {
    if (!(error instanceof KaadxpayError)) throw error;
    console.log(explain(error));
    return null;
  }
}

/** What a receiver does with each kind of event: the event type narrows the object. */
export function describe(event: WebhookEvent): string {
  switch (event.event_type) {
    case "payout.paid":
    case "payout.failed":
      return `${event.event_type}: ${event.data.object.destination.iban}`;
    case "order.captured":
      return `captured ${event.data.object.amount} ${event.data.object.currency}`;
    default:
      return event.event_type;
  }
}

export function receive(client: Kaadxpay, body: Uint8Array, headers: IncomingHttpHeaders, secrets: string[]): string {
  try {
    return describe(client.webhooks.constructEvent(body, headers, secrets));
  } catch (error) {
    if (error instanceof SignatureVerificationError) return explain(error);
    throw error;
  }
}

interface Delivery {
  body: Uint8Array;
  headers: IncomingHttpHeaders;
}

/** Registers an endpoint here, has a test event sent to it, and reads the delivery. */
export async function webhookRoundTrip(client: Kaadxpay): Promise<{ read: string; forged: string }> {
  const deliveries: Delivery[] = [];
  const receiver = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      deliveries.push({ body: Buffer.concat(chunks), headers: request.headers });
      response.end();
    });
  });
  const address = await new Promise<AddressInfo | string | null>((resolve) => receiver.listen(0, "127.0.0.1", () => resolve(receiver.address())));
  try {
    if (address === null || typeof address === "string") throw new Error("the receiver has no port");
    const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${address.port}/hooks`, events: ["order.captured"] });
    await client.webhookEndpoints.test(endpoint.id, { event_type: "order.captured" });
    const deadline = Date.now() + 15_000;
    while (deliveries.length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const delivery = deliveries[0];
    if (delivery === undefined) throw new Error("no delivery came");
    const read = receive(client, delivery.body, delivery.headers, [endpoint.secret]);
    const forgedBody = new TextEncoder().encode(new TextDecoder().decode(delivery.body).replace("order", "0rder"));
    const forged = receive(client, forgedBody, delivery.headers, [endpoint.secret]);
    await client.webhookEndpoints.delete(endpoint.id);
    return { read, forged };
  } finally {
    receiver.close();
  }
}

export interface Done {
  payout: Result<Payout> | null;
  tooMuchRefused: boolean;
  webhook: string;
  forgedWebhook: string;
}

export async function main(baseUrl: string, apiKey: string): Promise<Done> {
  const client = new Kaadxpay(apiKey, { baseUrl });
  let order = await client.orders.create({ amount: 2500, currency: "EUR", description: "Example" });
  try {
    order = await client.orders.capture(order.id);
    await client.orders.cancel(order.id);
  } catch (error) {
    if (!(error instanceof InvalidStateTransitionError)) throw error;
    console.log(explain(error));
  }
  try {
    await client.orders.create({ amount: 0, currency: "EUR" });
  } catch (error) {
    if (!(error instanceof InvalidRequestError)) throw error;
    console.log(explain(error));
  }
  const customer = { account_holder: "Grace Hopper", iban: "DE89370400440532013000" };
  const refund = await client.refunds.create(order.id, { amount: 500, destination: customer, reason: "requested_by_customer" });
  console.log(`refund ${refund.id} ${refund.status} of ${refund.order}, key ${refund.idempotencyKey}`);
  try {
    await client.refunds.create(order.id, { amount: order.amount, destination: customer });
  } catch (error) {
    if (!(error instanceof AmountExceedsRefundableError)) throw error;
    console.log(explain(error));
  }
  const refunded: number[] = [];
  for await (const each of client.refunds.list({ order: order.id })) refunded.push(each.amount);
  console.log(`refunds of ${order.id}: ${refunded.join(", ")}`);
  const payout = await payOut(client, 1000);
  if (payout !== null) console.log(`payout ${payout.id} ${payout.status}, key ${payout.idempotencyKey}, replayed: ${payout.replayed}`);
  const tooMuch = await payOut(client, 10 ** 11);
  let captured = 0;
  for await (const each of client.orders.list({ limit: 10 })) if (each.status === "captured") captured += each.amount;
  const statement: string[] = [];
  for await (const item of client.balanceTransactions.list({ currency: "EUR", limit: 5 })) statement.push(`${item.type} ${item.amount}`);
  const balance = await client.balance.retrieve();
  const available = balance.available.find((each) => each.currency === "EUR")?.amount ?? 0;
  console.log(`captured so far: ${captured}; EUR available ${available}; statement ${statement.slice(0, 3).join(", ")}`);
  const { read, forged } = await webhookRoundTrip(client);
  console.log(`webhook: ${read}; a forged copy: ${forged}`);
  return { payout, tooMuchRefused: tooMuch === null, webhook: read, forgedWebhook: forged };
}
