// Forms and people (API.md §9): a refused payout keeps what was typed with the reason beside the
// field; Back, then submitting the form again under a new key is held back as a repeat; a
// step-up brings the same form back, filled, with its key, and nothing is done until it is
// submitted.
import { test, expect } from '@playwright/test';
import { ConsolePage, env, merchantEmail, payoutCount } from '../fixtures/console';
import { totp } from '../fixtures/totp';

test('a refused payout comes back as typed, the reason beside the amount saying what is available', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/payouts/new');
  await expect(page.getByRole('region', { name: 'Available to pay out' })).toContainText('EUR');
  await console.fillPayout('9 999 999,50', 'Grace Hopper');
  const key = await page.locator('input[name="idempotency_key"]').inputValue();
  await console.payOutButton().click();
  const amount = page.getByLabel('Amount');
  await expect(amount).toHaveValue('9 999 999,50');
  await expect(amount).toHaveAttribute('aria-invalid', 'true');
  await expect(amount).toHaveAccessibleDescription(/is available/);
  await expect(page.getByLabel('Account holder')).toHaveValue('Grace Hopper');
  await expect(page.getByLabel('IBAN')).toHaveValue('DE89370400440532013000');
  await expect(page.getByLabel('Currency')).toHaveValue('EUR');
  expect(await page.locator('input[name="idempotency_key"]').inputValue()).not.toBe(key);
  await console.screenshot('new-payout-kept');
});

test('Back, then the form again under a new key, is held back as a repeat; "Do it again" does it', async ({ page, request }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  const before = await payoutCount(request);
  await console.fillPayout('5.55');
  await console.payOutButton().click();
  const first = await console.expectOnPayoutPage();

  // A browser that does not restore the hidden key: the form comes back with a new one.
  await page.goBack();
  await page.locator('input[name="idempotency_key"]').evaluate((input: HTMLInputElement) => {
    input.value = `console-${crypto.randomUUID()}`;
  });
  await page.getByLabel('Amount').fill('5.55');
  await page.getByLabel('Account holder').fill('Ada Lovelace');
  await page.getByLabel('IBAN').fill('DE89370400440532013000');
  await console.payOutButton().click();
  await expect(console.heading('This looks like a repeat')).toBeVisible();
  await expect(page).toHaveTitle('This looks like a repeat');
  expect(await payoutCount(request)).toBe(before + 1);
  await console.screenshot('repeat');
  const link = page.getByTestId('repeat-first');
  expect(new URL(first).pathname).toBe(await link.getAttribute('href'));

  await page.getByRole('button', { name: 'Do it again' }).click();
  const second = await console.expectOnPayoutPage();
  expect(second).not.toBe(first);
  expect(await payoutCount(request)).toBe(before + 2);
});

test('a step-up brings the payout form back filled, with its key, and pays nothing until submitted', async ({ page, browser, request }) => {
  test.slow(); // three browsers, an invitation and an enrolment before the payout
  // A new finance member, signed in twice: in one browser it turns two-step sign-in on, so the
  // other's session has no recent code.
  const owner = new ConsolePage(page);
  await owner.login(merchantEmail());
  await page.goto('/settings/team');
  const email = `step-up-${Date.now()}@shop.test`;
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('finance');
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = await page.locator('a.invitation-link').getAttribute('href');
  const joining = await browser.newContext();
  const member = await joining.newPage();
  await member.goto(link!);
  await member.getByLabel('Password').fill('a good password');
  await member.getByRole('button', { name: 'Join' }).click();
  const other = await browser.newContext();
  const enrolling = await other.newPage();
  await new ConsolePage(enrolling).login(email, 'a good password');
  await enrolling.goto('/settings/security');
  const secret = (await enrolling.getByTestId('totp-secret').textContent())!.trim();
  await enrolling.getByLabel('Authentication code').fill(totp(secret));
  await enrolling.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(enrolling.getByTestId('recovery-codes')).toBeVisible();

  const payer = new ConsolePage(member);
  const before = await payoutCount(request);
  await payer.fillPayout('6.66', 'Mary Somerville');
  const key = await member.locator('input[name="idempotency_key"]').inputValue();
  await payer.payOutButton().click();
  await expect(payer.heading('Confirm it is you')).toBeVisible();
  await expect(member.getByRole('status')).toContainText('New payout');
  await member.getByLabel('Authentication code').fill(totp(secret, 30));
  await member.getByRole('button', { name: 'Verify' }).click();

  await expect(payer.heading('New payout')).toBeVisible();
  await expect(member.getByLabel('Amount')).toHaveValue('6.66');
  await expect(member.getByLabel('Account holder')).toHaveValue('Mary Somerville');
  expect(await member.locator('input[name="idempotency_key"]').inputValue()).toBe(key);
  expect(await payoutCount(request)).toBe(before);
  await payer.payOutButton().click();
  await payer.expectOnPayoutPage();
  await expect(member.getByRole('link', { name: key })).toBeVisible();
  expect(await payoutCount(request)).toBe(before + 1);
  await joining.close();
  await other.close();
});

test('revoking an API key is confirmed on a page of its own, then a notice says it was done', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/settings/keys');
  const name = `To revoke ${Date.now()}`;
  await page.getByLabel('Name').fill(name);
  await page.getByRole('button', { name: 'Create key' }).click();
  await expect(page.getByRole('status').locator('code.secret')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Copy' })).toBeVisible();
  const row = page.getByRole('row', { name: new RegExp(name) });
  const revoke = row.getByRole('button', { name: 'Revoke' });
  await expect(revoke).toHaveClass(/danger/);
  await revoke.click();
  await expect(console.heading('Revoke this API key?')).toBeVisible();
  await expect(page).toHaveTitle('Revoke this API key?');
  expect(await page.getByRole('row', { name: new RegExp(name) }).count()).toBe(0);
  await console.screenshot('confirm-revoke');
  const confirm = page.getByRole('button', { name: 'Confirm' });
  await expect(confirm).toHaveClass(/danger/);
  await confirm.click();
  await expect(page.getByRole('status')).toHaveText('The API key was revoked: it no longer works.');
  await expect(page.getByRole('row', { name: new RegExp(name) }).getByRole('button', { name: 'Revoke' })).toHaveCount(0);
});

test('with JavaScript off, cancelling an order asks first; going back leaves it as it was', async ({ browser, request }) => {
  const created = await request.post('/v1/orders', {
    headers: { Authorization: `Bearer ${env('KAADXPAY_MERCHANT_API_KEY')}`, 'Idempotency-Key': `cancel-${Date.now()}` },
    data: { amount: 1234, currency: 'EUR', description: 'To cancel' },
  });
  expect(created.status()).toBe(201);
  const order = (await created.json()).id as string;
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto(`/orders/${order}`);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await expect(console.heading('Cancel this order?')).toBeVisible();
  await expect(page.getByText(order)).toBeVisible();
  await page.getByRole('link', { name: 'Go back without doing it' }).click();
  await expect(page.locator('.facts')).toContainText(/pending/i);
  await page.getByRole('button', { name: 'Cancel' }).click();
  await page.getByRole('button', { name: 'Confirm' }).click();
  await expect(page.getByRole('status')).toHaveText('The order was cancelled.');
  await expect(page.locator('.facts')).toContainText(/cancelled/i);
  await context.close();
});
