// Mistakes an integrator could make: each line whose comment says it is an error must fail
// tsc (the SDK's tests check that every marked line, and no other, is reported).
import { Kaadxpay } from "kaadxpay";

const client = new Kaadxpay("sk_test_x");
await client.orders.create({ amount: "1000", currency: "EUR" }); // error: a string amount
await client.orders.create({ amount: 1000, currency: "EURO" }); // error: an unknown currency
await client.orders.create({ amount: 1000, currency: "EUR", colour: "red" }); // error: an unknown field
await client.payouts.create({ amount: 1, currency: "EUR", destination: { account_holder: "A", iban: "X", bic: "Y" } }); // error: an unknown destination field
const order = await client.orders.retrieve("ord_1");
console.log(order.amout); // error: a misspelt attribute
const status: number = order.status; // error: a status is one of its strings
await client.webhookEndpoints.test("whe_1", { event_type: "order.shipped" }); // error: an unknown event type
const event = client.webhooks.constructEvent("", {}, "whsec_x");
console.log(event.data.object.destination); // error: an order has no destination
client.balanceTransactions.list({ type: "captured" }); // error: an unknown statement item type
client.balanceTransactions.list({ created: { after: "2026-01-01T00:00:00Z" } }); // error: a range has gte and lte
await client.refunds.create("ord_1", { amount: "300", destination: { account_holder: "A", iban: "X" } }); // error: a string amount
await client.refunds.create("ord_1", { destination: { account_holder: "A", iban: "X" }, reason: "changed_mind" }); // error: an unknown reason
console.log((await client.topUps.retrieve("tu_1")).reference); // error: a top-up has no reference
console.log(status);
