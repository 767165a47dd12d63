// A real `kaadxpay serve` for the tests: the cargo test (server/tests/integration/sdks) passes
// the binary, a fresh database and a merchant's API key in the environment.
import { spawn } from "node:child_process";
import { createServer } from "node:net";

export const apiKey = process.env.KAADXPAY_TEST_API_KEY;

async function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, "127.0.0.1", () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/** What the partner simulator signs its webhooks with, and the server checks them with. */
const partnerWebhookSecret = "whsec_sdk_tests_partner_secret";

/** A `kaadxpay partner-sim` whose webhooks go to `webhookUrl`: how the tests make money arrive. */
export class PartnerSim {
  static async start(webhookUrl, store) {
    const port = await freePort();
    const sim = new PartnerSim(port);
    const env = { ...process.env, RUST_LOG: "warn", KAADXPAY_PARTNER_WEBHOOK_SECRET: partnerWebhookSecret };
    const args = ["partner-sim", "--addr", `127.0.0.1:${port}`, "--webhook-url", webhookUrl, "--store", store];
    sim.process = spawn(process.env.KAADXPAY_BIN, args, { env, stdio: ["ignore", "ignore", "inherit"] });
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${sim.url}/_sim/config`)).ok) return sim;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the partner simulator did not answer at ${sim.url}`);
  }

  constructor(port) {
    this.url = `http://127.0.0.1:${port}`;
  }

  async stop() {
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.kill("SIGKILL");
    await exited;
  }
}

export class Server {
  static async create(failpoints, partnerUrl) {
    const server = new Server(await freePort(), failpoints);
    server.partnerUrl = partnerUrl;
    return server;
  }

  constructor(port, failpoints) {
    this.port = port;
    this.url = `http://127.0.0.1:${port}`;
    this.failpoints = failpoints;
  }

  async start(wait = true) {
    const env = { ...process.env, RUST_LOG: "warn", KAADXPAY_WEBHOOK_ALLOW_PRIVATE_NETWORKS: "true", DATABASE_URL: process.env.KAADXPAY_TEST_DATABASE_URL };
    if (this.failpoints) env.FAILPOINTS = this.failpoints;
    if (this.partnerUrl) {
      env.KAADXPAY_PARTNER_URL = this.partnerUrl;
      env.KAADXPAY_PARTNER_WEBHOOK_SECRET = partnerWebhookSecret;
    }
    this.process = spawn(process.env.KAADXPAY_BIN, ["serve", "--addr", `127.0.0.1:${this.port}`], { env, stdio: ["ignore", "ignore", "inherit"] });
    if (wait) await this.waitUntilAnswering();
  }

  async waitUntilAnswering() {
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      try {
        if ((await fetch(`${this.url}/healthz`)).ok) return;
      } catch {}
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`kaadxpay did not answer at ${this.url}`);
  }

  async stop() {
    if (!this.process) return;
    const exited = new Promise((resolve) => this.process.once("exit", resolve));
    this.process.kill("SIGKILL");
    await exited;
    this.process = undefined;
  }
}

/** The request log's entries with `key`, once there are `expected` of them or after 10 s. */
export async function requestsWithKey(client, key, expected) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = [];
    for await (const entry of client.requests.list({ idempotencyKey: key })) found.push(entry);
    if (found.length >= expected || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}
