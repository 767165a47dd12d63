import { test, expect } from '@playwright/test';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { ConsolePage, merchantEmail } from '../fixtures/console';

/** A local endpoint that answers 200 and keeps what it received. */
async function receiver(): Promise<{ url: string; received: string[]; close: () => void }> {
  const received: string[] = [];
  const server = http.createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => (body += chunk));
    request.on('end', () => {
      received.push(body);
      response.end('ok');
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, received, close: () => server.close() };
}

test('QA adds an endpoint in the console, sends it a test event and sees it delivered', async ({ page }) => {
  const hooks = await receiver();
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/webhooks');
  await page.getByLabel('Endpoint URL').fill(hooks.url);
  await page.getByLabel('Events').fill('payout.paid');
  await page.getByRole('button', { name: 'Add endpoint' }).dblclick();
  await expect(page.locator('code.secret')).toHaveText(/^whsec_/);
  const row = page.locator('table.endpoints tr', { hasText: hooks.url });
  await expect(row).toHaveCount(1);

  await row.getByLabel(/^Test event for/).selectOption('payout.paid');
  await row.getByRole('button', { name: 'Send test event' }).click();
  await expect.poll(() => hooks.received.length, { timeout: 15_000 }).toBe(1);
  const event = JSON.parse(hooks.received[0]);
  expect(event.event_type).toBe('payout.paid');
  expect(event.test).toBe(true);
  // The delivery and its answer show on the page.
  await expect(async () => {
    await page.goto('/webhooks');
    await expect(page.locator('section.event', { hasText: 'payout.paid' }).first()).toContainText('200', { timeout: 500 });
  }).toPass({ timeout: 15_000 });
  await console.screenshot('webhooks');

  await row.getByRole('button', { name: 'Disable' }).click();
  await expect(row).toContainText('disabled');
  await row.getByRole('button', { name: 'Delete' }).click();
  await expect(console.heading('Delete this webhook endpoint?')).toBeVisible();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toHaveText('The webhook endpoint was deleted.');
  await expect(row).toHaveCount(0);
  hooks.close();
});
