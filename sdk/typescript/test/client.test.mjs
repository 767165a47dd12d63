// What the SDK promises (API.md §14), against real servers: typed results with their key,
// request id and replay flag; an error class per code; lists that page; a key made once per
// call and kept on every retry, across a restart and through a real in-flight 409; no retry of
// a definitive answer; webhooks verified with several secrets.
import assert from "node:assert/strict";
import { randomUUID } from "node:crypto";
import { createServer } from "node:http";
import { after, before, test } from "node:test";

import * as kaadxpay from "../dist/index.js";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

import { PartnerSim, Server, apiKey, requestsWithKey } from "./server.mjs";

const destination = { account_holder: "Ada Lovelace", iban: "DE89370400440532013000" };
let shared;
let client;

before(async () => {
  shared = await Server.create();
  await shared.start();
  client = new kaadxpay.Kaadxpay(apiKey, { baseUrl: shared.url });
});
after(() => shared.stop());

test("results are typed and say their key, request and replay", async () => {
  const order = await client.orders.create({ amount: 1500, currency: "EUR", metadata: { cart: "42" } });
  assert.match(order.id, /^ord_/);
  assert.match(order.requestId, /^req_/);
  assert.match(order.idempotencyKey, /^[0-9a-f-]{8}-[0-9a-f]{4}-4/);
  assert.equal(order.replayed, false);
  const again = await client.orders.create({ amount: 1500, currency: "EUR", metadata: { cart: "42" }, idempotencyKey: order.idempotencyKey });
  assert.equal(again.id, order.id);
  assert.equal(again.replayed, true);
  assert.equal((await client.orders.capture(order.id)).status, "captured");
  assert.equal((await client.idempotencyKeys.retrieve(order.idempotencyKey)).status, "completed");
});

test("each refusal is its error class, and a definitive one is not retried", async () => {
  const key = `too-much-${randomUUID()}`;
  const short = () => client.payouts.create({ amount: 10 ** 11, currency: "GBP", destination, idempotencyKey: key });
  await assert.rejects(short(), (e) => e instanceof kaadxpay.InsufficientFundsError && e.idempotencyKey === key && e.requestId !== null);
  await assert.rejects(short(), (e) => e instanceof kaadxpay.InsufficientFundsError && e.replayed);
  await assert.rejects(
    client.payouts.create({ amount: 10 ** 10, currency: "GBP", destination, idempotencyKey: key }),
    kaadxpay.IdempotencyKeyReusedError,
  );
  await assert.rejects(client.payouts.retrieve("po_nothing"), kaadxpay.ResourceMissingError);
  await assert.rejects(client.orders.create({ amount: 0, currency: "EUR" }), (e) => e instanceof kaadxpay.InvalidRequestError && e.param === "amount");
  const order = await client.orders.create({ amount: 100, currency: "EUR" });
  await client.orders.cancel(order.id);
  await assert.rejects(client.orders.capture(order.id), kaadxpay.InvalidStateTransitionError);
  await assert.rejects(new kaadxpay.Kaadxpay("sk_test_wrong", { baseUrl: shared.url }).balance.retrieve(), kaadxpay.AuthenticationError);
  assert.equal((await requestsWithKey(client, key, 3)).length, 3);
});

test("a list pages by itself", async () => {
  const made = new Set();
  for (let n = 0; n < 5; n++) made.add((await client.orders.create({ amount: 10 + n, currency: "JPY" })).id);
  const seen = [];
  for await (const order of client.orders.list({ limit: 2 })) seen.push(order.id);
  assert.ok([...made].every((id) => seen.includes(id)));
  assert.equal(new Set(seen).size, seen.length);
});

test("the balance and its statement page and filter", async () => {
  const before = new Date();
  const captured = [];
  for (const amount of [300, 400, 500]) {
    const order = await client.orders.create({ amount, currency: "CNY" });
    await client.orders.capture(order.id);
    captured.push(order.id);
  }
  const payout = await client.payouts.create({ amount: 200, currency: "CNY", destination });
  const items = [];
  for await (const item of client.balanceTransactions.list({ currency: "CNY", limit: 2 })) items.push(item);
  assert.deepEqual(items.slice(0, 4).map((i) => i.source.id), [payout.id, ...[...captured].reverse()]);
  assert.deepEqual(items.slice(0, 4).map((i) => i.amount), [-200, 500, 400, 300]);
  assert.equal(new Set(items.map((i) => i.id)).size, items.length);
  assert.ok(items.every((i) => i.id.startsWith("btx_")));
  const balance = await client.balance.retrieve();
  assert.equal(items[0].balance_after, balance.available.find((a) => a.currency === "CNY").amount);
  for (let n = 1; n < items.length; n++) assert.equal(items[n - 1].balance_after - items[n - 1].amount, items[n].balance_after);
  const credits = [];
  for await (const item of client.balanceTransactions.list({ currency: "CNY", type: "order_captured", created: { gte: before } })) credits.push(item.source.id);
  assert.deepEqual(credits, [...captured].reverse());
  const none = [];
  for await (const item of client.balanceTransactions.list({ currency: "CNY", created: { lte: "2000-01-01T00:00:00Z" } })) none.push(item);
  assert.deepEqual(none, []);
});

test("refunds are keyed, capped and listed by order", async () => {
  const order = await client.orders.create({ amount: 1000, currency: "EUR" });
  await client.orders.capture(order.id);
  const firstKey = `refund-${randomUUID()}`;
  const first = await client.refunds.create(order.id, { amount: 300, destination, reason: "requested_by_customer", idempotencyKey: firstKey });
  assert.match(first.id, /^re_/);
  assert.deepEqual([first.order, first.status, first.amount, first.currency, first.reason], [order.id, "pending", 300, "EUR", "requested_by_customer"]);
  assert.equal(first.idempotencyKey, firstKey);
  assert.equal(first.replayed, false);
  const second = await client.refunds.create(order.id, { amount: 400, destination, description: "Broken handle" });
  assert.notEqual(second.id, first.id);
  assert.notEqual(second.idempotencyKey, firstKey);
  const again = await client.refunds.create(order.id, { amount: 300, destination, reason: "requested_by_customer", idempotencyKey: firstKey });
  assert.equal(again.id, first.id);
  assert.equal(again.replayed, true);
  const overKey = `over-${randomUUID()}`;
  const over = () => client.refunds.create(order.id, { amount: 301, destination, idempotencyKey: overKey });
  await assert.rejects(over(), (e) => e instanceof kaadxpay.AmountExceedsRefundableError && e instanceof kaadxpay.KaadxpayError && e.status === 409 && e.code === "amount_exceeds_refundable" && e.param === "amount" && e.idempotencyKey === overKey);
  await assert.rejects(over(), (e) => e instanceof kaadxpay.AmountExceedsRefundableError && e.replayed === true);
  assert.equal((await requestsWithKey(client, overKey, 2)).length, 2); // never retried
  assert.equal((await client.orders.retrieve(order.id)).amount_refunded, 700);
  assert.equal((await client.refunds.retrieve(first.id)).amount, 300);
  const listed = [];
  for await (const refund of client.refunds.list({ order: order.id, limit: 1 })) listed.push(refund.id);
  assert.deepEqual(listed, [second.id, first.id]);
  const other = await client.orders.create({ amount: 50, currency: "EUR" });
  await assert.rejects(client.refunds.create(other.id, { destination }), kaadxpay.InvalidStateTransitionError);
  await client.orders.capture(other.id);
  const rest = await client.refunds.create(other.id, { destination });
  assert.equal(rest.amount, 50);
  const all = new Set();
  for await (const refund of client.refunds.list({ limit: 2 })) all.add(refund.id);
  for (const id of [first.id, second.id, rest.id]) assert.ok(all.has(id));
  await assert.rejects(client.refunds.retrieve("re_nothing"), kaadxpay.ResourceMissingError);
});

test("money sent to the funding account is a top-up", async () => {
  const server = await Server.create();
  const partner = await PartnerSim.start(`${server.url}/webhooks/partner`, join(mkdtempSync(join(tmpdir(), "kaadxpay-sim-")), "partner.jsonl"));
  server.partnerUrl = partner.url;
  await server.start();
  try {
    const money = new kaadxpay.Kaadxpay(apiKey, { baseUrl: server.url });
    const account = await money.fundingAccount.retrieve();
    assert.equal(account.object, "funding_account");
    assert.ok(account.reference.length > 0 && account.iban.length > 0);
    const sent = await fetch(`${partner.url}/_sim/incoming`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ amount: 4200, currency: "EUR", reference: account.reference }),
    });
    assert.equal(sent.status, 201);
    const incoming = (await sent.json()).id;
    const deadline = Date.now() + 15_000;
    let found = [];
    for (;;) {
      found = [];
      for await (const topUp of money.topUps.list({ limit: 1 })) if (topUp.partner_incoming_id === incoming) found.push(topUp);
      if (found.length > 0 || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    assert.equal(found.length, 1);
    const topUp = await money.topUps.retrieve(found[0].id);
    assert.match(topUp.id, /^tu_/);
    assert.deepEqual([topUp.amount, topUp.currency, topUp.partner_incoming_id], [4200, "EUR", incoming]);
    await assert.rejects(money.topUps.retrieve("tu_nothing"), kaadxpay.ResourceMissingError);
  } finally {
    await server.stop();
    await partner.stop();
  }
});

test("API keys are made, rolled and revoked", async () => {
  const reporting = await client.apiKeys.create({ name: "Reporting", access: "read_only" });
  assert.match(reporting.id, /^key_/);
  assert.ok(reporting.secret);
  assert.equal((await client.apiKeys.retrieve(reporting.id)).secret, null);
  const listed = [];
  for await (const key of client.apiKeys.list({ limit: 1 })) listed.push(key.id);
  assert.ok(listed.includes(reporting.id));
  const reader = new kaadxpay.Kaadxpay(reporting.secret, { baseUrl: shared.url });
  assert.equal((await reader.balance.retrieve()).object, "balance");
  await assert.rejects(reader.orders.create({ amount: 5, currency: "EUR" }), kaadxpay.PermissionDeniedError);
  const successor = await client.apiKeys.roll(reporting.id, { overlap: "now" });
  assert.ok(successor.secret);
  assert.notEqual(successor.id, reporting.id);
  await refusedSoon(reader);
  assert.ok((await client.apiKeys.revoke(successor.id)).expires_at);
  await refusedSoon(new kaadxpay.Kaadxpay(successor.secret, { baseUrl: shared.url }));
});

/** A stopped key is refused within moments (the server's key cache hears of it by a notification, after the answer). */
async function refusedSoon(stopped) {
  const deadline = Date.now() + 6_000;
  while (Date.now() < deadline) {
    try {
      await stopped.balance.retrieve();
    } catch (error) {
      if (error instanceof kaadxpay.AuthenticationError) return;
      throw error;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  assert.fail("a stopped key still works");
}

test("a call retries across a real restart with one key and one effect", async () => {
  const server = await Server.create();
  const marker = `across a restart ${randomUUID()}`;
  const retrying = new kaadxpay.Kaadxpay(apiKey, { baseUrl: server.url, maxRetries: 6 });
  setTimeout(() => server.start(false), 1000);
  try {
    const order = await retrying.orders.create({ amount: 777, currency: "EUR", description: marker });
    const record = await retrying.idempotencyKeys.retrieve(order.idempotencyKey);
    assert.equal(record.resource?.id, order.id);
    const same = [];
    for await (const o of retrying.orders.list({ limit: 100 })) if (o.description === marker) same.push(o.id);
    assert.deepEqual(same, [order.id]);
  } finally {
    await server.stop();
  }
});

test("a retried call keeps its key and executes once", async () => {
  const server = await Server.create("order.before_commit=1*return");
  await server.start();
  try {
    const retrying = new kaadxpay.Kaadxpay(apiKey, { baseUrl: server.url });
    const order = await retrying.orders.create({ amount: 4242, currency: "USD" });
    const logged = await requestsWithKey(retrying, order.idempotencyKey, 2);
    assert.deepEqual(logged.map((entry) => entry.status).sort(), [201, 500]);
  } finally {
    await server.stop();
  }
});

test("a real request in flight is waited out and replayed", async () => {
  const server = await Server.create("idempotency.in_transaction=1*return(1500)");
  await server.start();
  try {
    const retrying = new kaadxpay.Kaadxpay(apiKey, { baseUrl: server.url });
    const key = `held-${randomUUID()}`;
    const first = retrying.orders.create({ amount: 9, currency: "EUR", idempotencyKey: key });
    await new Promise((resolve) => setTimeout(resolve, 400));
    const second = await retrying.orders.create({ amount: 9, currency: "EUR", idempotencyKey: key });
    assert.equal(second.replayed, true);
    assert.equal(second.id, (await first).id);
    const statuses = (await requestsWithKey(retrying, key, 3)).map((entry) => entry.status).sort();
    assert.deepEqual(statuses, [201, 201, 409]);
  } finally {
    await server.stop();
  }
});

test("a real delivery is verified with any of its secrets and typed", async () => {
  const received = [];
  const receiver = createServer((request, response) => {
    const chunks = [];
    request.on("data", (chunk) => chunks.push(chunk));
    request.on("end", () => {
      received.push({ body: Buffer.concat(chunks), headers: request.headers });
      response.end();
    });
  });
  await new Promise((resolve) => receiver.listen(0, "127.0.0.1", resolve));
  try {
    const endpoint = await client.webhookEndpoints.create({ url: `http://127.0.0.1:${receiver.address().port}/hooks` });
    const rotated = await client.webhookEndpoints.rotateSecret(endpoint.id, { overlap: "1h" });
    const sent = await client.webhookEndpoints.test(endpoint.id, { event_type: "payout.paid" });
    // The endpoint hears of every event, real ones too (a refund settling): keep the test's.
    const ours = () => received.filter((each) => each.headers["webhook-id"] === sent.id);
    const deadline = Date.now() + 15_000;
    while (ours().length === 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 100));
    const [{ body, headers }] = ours();
    for (const secrets of [rotated.secret, endpoint.secret, [endpoint.secret, rotated.secret]]) {
      const event = client.webhooks.constructEvent(body, headers, secrets);
      assert.equal(event.event_type, "payout.paid");
      assert.equal(event.test, true);
    }
    assert.throws(() => client.webhooks.constructEvent(body, headers, `whsec_${"A".repeat(32)}`), kaadxpay.SignatureVerificationError);
    assert.throws(() => client.webhooks.constructEvent(body.toString().replace("payout", "pay0ut"), headers, endpoint.secret), kaadxpay.SignatureVerificationError);
  } finally {
    receiver.close();
  }
});

test("the integration example runs", async () => {
  const { main } = await import("../dist-examples/integration.js");
  const done = await main(shared.url, apiKey);
  assert.ok(["pending", "in_transit", "paid"].includes(done.payout?.status));
  assert.equal(done.tooMuchRefused, true);
  assert.match(done.webhook, /^captured /);
  assert.equal(done.forgedWebhook, "not from Kaadxpay: refused");
});
