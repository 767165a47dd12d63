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
  // The journeys sign several people in and wait for workers; a machine shared with builds is slow.
  timeout: 60_000,
  reporter: [['list']],
  outputDir: './test-results',
  // Every journey in English; the main ones again in Simplified Chinese (zh-CN.spec.ts), where
  // they find what they click by id, name and data-testid, not by English text.
  projects: [
    { name: 'en', testIgnore: /zh-CN\.spec\.ts$/ },
    {
      name: 'zh-CN',
      testMatch: /zh-CN\.spec\.ts$/,
      use: { locale: 'zh-CN', extraHTTPHeaders: { 'Accept-Language': 'zh-CN,zh;q=0.9' } },
    },
  ],
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
