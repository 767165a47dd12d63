import { test, expect } from '@playwright/test';
import { ConsolePage, env, merchantEmail, supportEmail } from '../fixtures/console';

test("a merchant user cannot open another merchant's payout, order or key", async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  for (const path of [`/payouts/${env('KAADXPAY_OTHER_PAYOUT')}`, `/orders/${env('KAADXPAY_OTHER_ORDER')}`]) {
    const response = await page.goto(path);
    expect(response?.status()).toBe(404);
    await expect(console.heading('Page not found')).toBeVisible();
  }
  const response = await page.goto(`/keys?key=${env('KAADXPAY_OTHER_KEY')}`);
  expect(response?.status()).toBe(404);
  await expect(page.getByText('No record for this key')).toBeVisible();
  const support = await page.goto('/support');
  expect(support?.status()).toBe(404);
});

test("support finds any merchant's key and can change nothing but start a reconciliation run", async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(supportEmail());
  await page.getByLabel('Key, merchant, payout or order id').fill(env('KAADXPAY_OTHER_KEY'));
  await page.getByRole('button', { name: 'Search' }).click();
  const row = page.getByRole('row', { name: new RegExp(env('KAADXPAY_OTHER_PAYOUT')) });
  await expect(row).toBeVisible();
  await expect(row).toContainText('POST /v1/payouts');
  const buttons = await page.getByRole('button').allTextContents();
  expect(buttons.sort()).toEqual(['Search', 'Sign out']);
  await console.screenshot('support');

  await page.goto('/reconciliation');
  await expect(console.heading('Reconciliation')).toBeVisible();
  // API.md §9: a support user changes nothing, except running reconciliation.
  expect((await page.getByRole('button').allTextContents()).sort()).toEqual(['Run reconciliation now', 'Sign out']);
});
