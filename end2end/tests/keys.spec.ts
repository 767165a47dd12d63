import { test, expect } from '@playwright/test';
import { ConsolePage, env, merchantEmail } from '../fixtures/console';

test('a key look-up shows in_progress, then completed, by itself', async ({ page, request }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  const key = `live-${Date.now()}`;
  // The server under test takes 1.5 s to commit an order, so the key is in progress meanwhile.
  const creating = request.post('/v1/orders', {
    headers: { Authorization: `Bearer ${env('KAADXPAY_MERCHANT_API_KEY')}`, 'Idempotency-Key': key },
    data: { amount: 500, currency: 'EUR' },
  });
  await page.waitForTimeout(300);
  await page.goto('/keys');
  await page.getByLabel('Idempotency key').fill(key);
  await page.getByRole('button', { name: 'Look up' }).click();
  const status = page.locator('.key-record .badge').first();
  await expect(status).toHaveText('in_progress');
  await console.screenshot('key-in-progress');
  expect((await creating).status()).toBe(201);
  await expect(status).toHaveText('completed', { timeout: 10_000 });
  await expect(page.getByText('HTTP 201')).toBeVisible();
  await expect(page.getByRole('link', { name: /^order ord_/ })).toBeVisible();
  await console.screenshot('key-completed');
});
