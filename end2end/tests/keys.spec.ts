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

test("a key sent four times shows four attempts on its page, one new and three replayed, in order", async ({ page, request }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  const key = `replayed-${Date.now()}`;
  for (let attempt = 0; attempt < 4; attempt++) {
    const answer = await request.post('/v1/orders', {
      headers: { Authorization: `Bearer ${env('KAADXPAY_MERCHANT_API_KEY')}`, 'Idempotency-Key': key },
      data: { amount: 700, currency: 'EUR' },
    });
    expect(answer.status()).toBe(201);
  }
  const requests = page.locator('ol.timeline .timeline-request');
  // The request log is written in batches, within a few seconds.
  await expect(async () => {
    await page.goto(`/keys?key=${key}`);
    await expect(requests).toHaveCount(4, { timeout: 500 });
  }).toPass({ timeout: 20_000 });
  const summaries = await requests.locator('.summary').allTextContents();
  expect(summaries.map((summary) => summary.match(/answered 201 (new|replayed)/)?.[1])).toEqual([
    'new',
    'replayed',
    'replayed',
    'replayed',
  ]);
  await expect(page.locator('ol.timeline .timeline-event')).toContainText('order.created sent to the merchant');
  await console.screenshot('key-timeline');

  // The request log lists the same four, and each opens with its redacted body.
  await page.getByRole('link', { name: 'Requests' }).click();
  await page.getByLabel('Idempotency key').fill(key);
  await page.getByRole('button', { name: 'Filter' }).click();
  const rows = page.getByRole('row', { name: new RegExp(key) });
  await expect(rows).toHaveCount(4);
  await rows.first().getByRole('link', { name: /^req_/ }).click();
  await expect(console.heading(/^Request req_/)).toBeVisible();
  await expect(page.getByText('{"amount":700,"currency":"EUR"}', { exact: true })).toBeVisible();
  await console.screenshot('request');
});
