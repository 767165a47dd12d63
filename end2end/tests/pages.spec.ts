import { test, expect } from '@playwright/test';
import { ConsolePage, merchantEmail } from '../fixtures/console';

test('every merchant page renders, styled, and is captured', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  const pages: [string, string, string][] = [
    ['/payouts', 'Payouts', 'payouts'],
    ['/payouts/new', 'New payout', 'new-payout'],
    ['/orders', 'Orders', 'orders'],
    ['/keys', 'Idempotency keys', 'keys'],
    ['/requests', 'Requests', 'requests'],
    ['/reconciliation', 'Reconciliation', 'reconciliation'],
    ['/settings/keys', 'API keys', 'api-keys'],
    ['/settings/audit', 'Audit log', 'audit'],
    ['/settings/security', 'Security', 'security'],
    ['/settings/payouts', 'Payout approvals', 'payout-settings'],
  ];
  for (const [path, heading, name] of pages) {
    await page.goto(path);
    await expect(console.heading(heading)).toBeVisible();
    await console.screenshot(name);
  }
  const background = await page.locator('header.topbar').evaluate((el) => getComputedStyle(el).backgroundColor);
  expect(background).not.toBe('rgba(0, 0, 0, 0)');
});

test('an order can be captured from its page, once', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/orders');
  await page.getByRole('row', { name: /Blue shoes/ }).getByRole('link').click();
  await expect(console.heading(/^Order ord_/)).toBeVisible();
  await console.screenshot('order');
  await page.getByRole('button', { name: 'Capture' }).click();
  await expect(page.locator('.facts .badge').first()).toHaveText('captured');
  await expect(page.getByRole('button', { name: 'Capture' })).toHaveCount(0);
});

test('the console works at phone width and with JavaScript off', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  const console = new ConsolePage(await context.newPage());
  await console.login(merchantEmail());
  await expect(console.heading('Overview')).toBeVisible();
  await console.screenshot('overview-phone');
  await context.close();
});

test('an unknown page says so', async ({ page }) => {
  const console = new ConsolePage(page);
  const response = await page.goto('/no-such-page');
  expect(response?.status()).toBe(404);
  await expect(console.heading('Page not found')).toBeVisible();
  await console.screenshot('not-found');
});

test('webhooks show endpoints, events and every attempt, and redeliver', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/webhooks');
  await expect(console.heading('Webhooks')).toBeVisible();
  await expect(page.getByRole('cell', { name: 'http://127.0.0.1:9/hooks' }).first()).toBeVisible();
  await expect(page.locator('section.event h3', { hasText: 'order.created' }).first()).toBeVisible();
  const redeliver = page.getByRole('button', { name: 'Redeliver' }).first();
  await redeliver.click();
  await expect(page).toHaveURL(/\/webhooks$/);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await console.screenshot('webhooks');
});
