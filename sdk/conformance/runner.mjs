// The conformance suite's TypeScript runner: makes each case of cases.json with the `kaadxpay`
// package (sdk/typescript/dist) through the fault proxy, and writes what each call came back
// with to $KAADXPAY_CONFORMANCE_OUT (the cargo test in server/tests/integration/sdks/
// conformance.rs runs the proxy and checks the answers and the effects on the server).
import { readFileSync, writeFileSync } from "node:fs";

import { Kaadxpay, KaadxpayError } from "../typescript/dist/index.js";

const LANGUAGE = "typescript";
const DESTINATION = { account_holder: "Ada Lovelace", iban: "DE89370400440532013000" };

const describe = (error) => ({
  class: error.constructor.name,
  status: error.status,
  code: error.code,
  idempotency_key: error.idempotencyKey,
});

async function run(c, proxy, direct, apiKey, maxRetries) {
  const marker = `conformance ${LANGUAGE} ${c.name}`;
  const callersKey = c.callers_key ? `conformance-${LANGUAGE}-${c.name}` : undefined;
  const client = new Kaadxpay(apiKey, { baseUrl: `${proxy}/${LANGUAGE}/${c.name}`, maxRetries });
  const setup = new Kaadxpay(apiKey, { baseUrl: direct });
  const { amount, currency } = c;
  const outcome = { case: c.name, result: null, error: null, first_error: null };
  const createOrder = (idempotencyKey) => client.orders.create({ amount, currency, description: marker, idempotencyKey });
  try {
    let result;
    switch (c.op) {
      case "create_order":
        result = await createOrder(callersKey);
        break;
      case "create_payout":
        result = await client.payouts.create({ amount, currency, destination: DESTINATION, description: marker, idempotencyKey: callersKey });
        break;
      case "capture_cancelled_order": {
        const order = await setup.orders.create({ amount, currency, description: marker });
        await setup.orders.cancel(order.id);
        result = await client.orders.capture(order.id);
        break;
      }
      case "create_order_with_a_used_key":
        await setup.orders.create({ amount: 1, currency, description: "setup", idempotencyKey: callersKey });
        result = await createOrder(callersKey);
        break;
      case "create_order_again_with_the_errors_key":
        try {
          result = await createOrder(undefined);
        } catch (first) {
          if (!(first instanceof KaadxpayError)) throw first;
          outcome.first_error = describe(first);
          result = await createOrder(first.idempotencyKey ?? undefined);
        }
        break;
      default:
        throw new Error(`unknown op ${c.op}`);
    }
    outcome.result = { id: result.id, idempotency_key: result.idempotencyKey, replayed: result.replayed };
  } catch (error) {
    if (!(error instanceof KaadxpayError)) throw error;
    outcome.error = describe(error);
  }
  return outcome;
}

const { cases } = JSON.parse(readFileSync(process.env.KAADXPAY_CONFORMANCE_CASES, "utf8"));
const override = process.env.KAADXPAY_CONFORMANCE_MAX_RETRIES;
const outcomes = [];
for (const c of cases) {
  outcomes.push(
    await run(
      c,
      process.env.KAADXPAY_CONFORMANCE_PROXY,
      process.env.KAADXPAY_CONFORMANCE_DIRECT,
      process.env.KAADXPAY_TEST_API_KEY,
      override ? Number(override) : c.max_retries,
    ),
  );
}
writeFileSync(process.env.KAADXPAY_CONFORMANCE_OUT, JSON.stringify(outcomes));
