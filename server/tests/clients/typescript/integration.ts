// An integrator's first script, written against the types openapi-typescript generates from
// /openapi.json (schema.d.ts, made by the test) and openapi-fetch: it must pass tsc --strict.
import createClient from "openapi-fetch";
import type { components, paths } from "./schema";

type Order = components["schemas"]["Order"];
type Payout = components["schemas"]["Payout"];
type Delivery = components["schemas"]["PayoutPaidEvent"] | components["schemas"]["OrderCreatedEvent"];

export async function integrate(baseUrl: string, apiKey: string): Promise<void> {
  const client = createClient<paths>({ baseUrl, headers: { Authorization: `Bearer ${apiKey}` } });
  const key = `ts-order-${crypto.randomUUID()}`;
  const body = { amount: 5000, currency: "EUR", description: "Generated types" } as const;

  const created = await client.POST("/v1/orders", { params: { header: { "Idempotency-Key": key } }, body });
  if (!created.data) throw new Error("create failed");
  const order: Order = created.data;
  const pending: "pending" | "captured" | "cancelled" = order.status;
  const object: "order" = order.object;

  const replayed = await client.POST("/v1/orders", { params: { header: { "Idempotency-Key": key } }, body });
  if (replayed.data?.id !== order.id) throw new Error("a replay names the same order");

  const captured = await client.PUT("/v1/orders/{id}", { params: { path: { id: order.id } }, body: { status: "captured" } });
  if (captured.data?.status !== "captured") throw new Error(`capture: ${pending} ${object}`);

  const paid = await client.POST("/v1/payouts", {
    params: { header: { "Idempotency-Key": `ts-payout-${crypto.randomUUID()}` } },
    body: { amount: 1200, currency: "EUR", destination: { account_holder: "Ada Lovelace", iban: "DE89370400440532013000" } },
  });
  const payout: Payout | undefined = paid.data;
  const iban: string | undefined = payout?.destination.iban;

  const record = await client.GET("/v1/idempotency-keys/{key}", { params: { path: { key } } });
  const status: "in_progress" | "completed" | "failed" | "expired" | undefined = record.data?.status;

  const reused = await client.POST("/v1/orders", {
    params: { header: { "Idempotency-Key": key } },
    body: { amount: 9999, currency: "EUR" },
  });
  const refusal = reused.error;
  if (refusal?.error.code !== "idempotency_key_reused") throw new Error(`${iban} ${status}`);
}

// A receiver types what it is sent from the document's webhooks section: the event type
// narrows the object.
export function receive(delivery: Delivery): string {
  return delivery.event_type === "payout.paid"
    ? `${delivery.event_type} ${delivery.data.object.destination.iban}`
    : `${delivery.event_type} ${delivery.data.object.amount}`;
}
