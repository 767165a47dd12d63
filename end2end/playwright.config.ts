// Playwright runs Debian's Chromium: `npx playwright install` cannot download a browser here.
// The server under test is started by server/tests/integration/console/end2end.rs, which passes its address in
// KAADXPAY_BASE_URL (and the demo credentials the tests use).
import { defineConfig } from '@playwright/test';

const baseURL = process.env.KAADXPAY_BASE_URL;
if (!baseURL) {
  throw new Error('KAADXPAY_BASE_URL is not set: run the end-to-end tests through `cargo test` (server/tests/integration/console/end2end.rs).');
}

export default defineConfig({
  testDir: './tests',
  forbidOnly: true,
  retries: 0,
  workers: 1,
  reporter: [['list']],
  outputDir: './test-results',
  use: {
    baseURL,
    screenshot: 'on',
    trace: 'retain-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    },
  },
});
