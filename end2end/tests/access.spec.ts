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
  await page.getByLabel(/^Any id/).fill(env('KAADXPAY_OTHER_KEY'));
  await page.getByRole('button', { name: 'Search' }).click();
  // One match: the search lands on the key's timeline, with its record and its payout.
  await expect(console.heading(`Idempotency key ${env('KAADXPAY_OTHER_KEY')}`)).toBeVisible();
  await expect(page.locator('.key-record')).toContainText('POST /v1/payouts');
  await expect(page.getByRole('link', { name: `payout ${env('KAADXPAY_OTHER_PAYOUT')}` })).toBeVisible();
  expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
  await console.screenshot('support');

  await page.goto('/support');
  await page.getByLabel(/^Any id/).fill('b-');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByRole('row', { name: /b-payout/ })).toBeVisible();
  expect((await page.getByRole('button').allTextContents()).sort()).toEqual(['Search', 'Sign out']);

  await page.goto('/reconciliation');
  await expect(console.heading('Reconciliation')).toBeVisible();
  // API.md §9: a support user changes nothing, except running reconciliation.
  // (The list's filter is a GET form: it changes nothing.)
  expect((await page.locator('form[method="post"] button').allTextContents()).sort()).toEqual([
    'Run reconciliation now',
    'Sign out',
  ]);
});

test("support pastes a partner transfer id and lands on the payout's timeline", async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(supportEmail());
  await page.getByLabel(/^Any id/).fill(env('KAADXPAY_OTHER_TRANSFER'));
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(console.heading(`Payout ${env('KAADXPAY_OTHER_PAYOUT')}`)).toBeVisible();
  const timeline = page.locator('ol.timeline');
  await expect(timeline.locator('.timeline-payout')).toContainText('created under end-to-end key kxp-');
  await expect(timeline.locator('.timeline-partner_call').first()).toContainText(env('KAADXPAY_OTHER_TRANSFER'));
  await expect(timeline.locator('.timeline-request').first()).toContainText('POST /v1/payouts answered 201 new');
  // Beside its timeline, before it, the payout's facts: status, amount as people write it, the
  // destination masked but its last 4, the merchant and the key; nothing to press.
  const facts = page.locator('dl.facts');
  const fact = (name: string) => facts.locator(`dt:text-is("${name}") + dd`);
  await expect(fact('Status').locator('.badge')).toBeVisible();
  await expect(fact('Amount')).toHaveText('10.00 EUR');
  await expect(fact('Account holder')).toHaveText('Grace Hopper');
  await expect(fact('IBAN')).toHaveText('****5432');
  await expect(fact('Merchant')).toHaveText(/\S/);
  await expect(fact('Idempotency key')).toHaveText(env('KAADXPAY_OTHER_KEY'));
  await expect(fact('Partner transfer')).toHaveText(env('KAADXPAY_OTHER_TRANSFER'));
  expect(await page.content()).not.toContain('GB82WEST12345698765432');
  expect((await facts.boundingBox())!.y).toBeLessThan((await timeline.boundingBox())!.y);
  expect(await page.getByRole('button').allTextContents()).toEqual(['Sign out']);
  await console.screenshot('support-payout-timeline');
});
