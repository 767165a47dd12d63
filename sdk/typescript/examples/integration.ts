// An integration, as a merchant writes it: an order and a payout, each error handled, a list
// paged through, a webhook verified and read. It type-checks under tsc --strict
// --noUncheckedIndexedAccess with no cast, and the SDK's tests run it against a real server.
import {
  APIConnectionError,
  InsufficientFundsError,
  InvalidRequestError,
  InvalidStateTransitionError,
  Kaadxpay,
  ServiceUnavailableError,
  SignatureVerificationError,
  type Payout,
  type Result,
  type WebhookEvent,
} from "kaadxpay";

export async function payOut(client: Kaadxpay, amount: number): Promise<Result<Payout> | null> {
  try {
    return await client.payouts.create({
      amount,
      currency: "EUR",
      destination: { account_holder: "Ada Lovelace", iban: "DE89370400440532013000" },
      description: "Weekly settlement",
    });
  } catch (error) {
    if (error instanceof InsufficientFundsError) {
      console.log(`not enough EUR (${error.requestId}, key ${error.idempotencyKey})`);
    } else if (error instanceof InvalidRequestError) {
      console.log(`fix ${error.param}: ${error.message}`);
    } else if (error instanceof ServiceUnavailableError || error instanceof APIConnectionError) {
      console.log(`try again later with key ${error.idempotencyKey}`);
    } else {
      throw error;
    }
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

export function receive(client: Kaadxpay, body: Uint8Array, headers: Record<string, string>, secrets: string[]): string {
  try {
    return describe(client.webhooks.constructEvent(body, headers, secrets));
  } catch (error) {
    if (error instanceof SignatureVerificationError) return "refused";
    throw error;
  }
}

export async function main(baseUrl: string, apiKey: string): Promise<void> {
  const client = new Kaadxpay(apiKey, { baseUrl });
  let order = await client.orders.create({ amount: 2500, currency: "EUR", description: "Example" });
  try {
    order = await client.orders.capture(order.id);
  } catch (error) {
    if (!(error instanceof InvalidStateTransitionError)) throw error;
    console.log(`the order moved already: ${error.message}`);
  }
  const payout = await payOut(client, 1000);
  if (payout !== null) console.log(`payout ${payout.id} ${payout.status}, replayed: ${payout.replayed}`);
  let captured = 0;
  for await (const each of client.orders.list({ limit: 10 })) if (each.status === "captured") captured += each.amount;
  console.log(`captured so far: ${captured}; order ${order.id} is ${order.status}`);
}
