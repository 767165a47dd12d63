// A notice after every action (API.md §9, "Forms and people"): the page an action leads to says
// what was done, in a status region that is read out, once (a reload says nothing more); a
// refused action says nothing was done.
import { test, expect, type APIRequestContext } from '@playwright/test';
import { ConsolePage, env, merchantEmail } from '../fixtures/console';

/** A pending order of the merchant's, made through the API. */
async function pendingOrder(request: APIRequestContext, amount: number): Promise<string> {
  const created = await request.post('/v1/orders', {
    headers: { Authorization: `Bearer ${env('KAADXPAY_MERCHANT_API_KEY')}`, 'Idempotency-Key': `notices-${Date.now()}` },
    data: { amount, currency: 'EUR', description: 'Notices' },
  });
  expect(created.status()).toBe(201);
  return (await created.json()).id as string;
}

test('the page after each action says what was done, once; a refused one says nothing', async ({ page, request }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  const done = page.getByRole('status').and(page.locator('.done'));

  await console.fillPayout('7.77');
  await console.payOutButton().click();
  await console.expectOnPayoutPage();
  await expect(done).toHaveText('The payout was created.');
  await expect(done).toBeInViewport();
  await console.screenshot('notice-payout-created');
  await page.reload();
  await console.expectOnPayoutPage();
  await expect(done).toHaveCount(0);

  // Captured, then refunded, from the order's page.
  const order = await pendingOrder(request, 3000);
  await page.goto(`/orders/${order}`);
  await page.getByRole('button', { name: 'Capture' }).click();
  await expect(done).toHaveText('The order was captured.');
  const refund = page.locator('form#refund');
  await refund.getByLabel('Amount').fill('2,50');
  await refund.getByLabel('Account holder').fill('Grace Hopper');
  await refund.getByLabel('IBAN').fill('DE89370400440532013000');
  await refund.getByRole('button', { name: 'Refund' }).click();
  await expect(done).toHaveText('The refund was created.');
  await expect(page.getByRole('cell', { name: '2.50 EUR' })).toBeVisible();
  await console.screenshot('notice-refund-created');

  // More than is left to refund: refused beside the amount, and no notice of anything done.
  await refund.getByLabel('Amount').fill('100,00');
  await refund.getByLabel('Account holder').fill('Grace Hopper');
  await refund.getByLabel('IBAN').fill('DE89370400440532013000');
  await refund.getByRole('button', { name: 'Refund' }).click();
  await expect(refund.getByLabel('Amount')).toHaveAttribute('aria-invalid', 'true');
  await expect(done).toHaveCount(0);
});
