import { test, expect } from '@playwright/test';
import { ConsolePage, merchantEmail, payoutCount } from '../fixtures/console';

test.beforeEach(async ({ page }) => {
  await new ConsolePage(page).login(merchantEmail());
});

test('a double click makes one payout, shown with its key', async ({ page, request }) => {
  const console = new ConsolePage(page);
  const before = await payoutCount(request);
  await console.fillPayout('1.11');
  const key = await page.locator('input[name="idempotency_key"]').inputValue();
  await console.payOutButton().dblclick();
  await console.expectOnPayoutPage();
  await expect(page.getByRole('link', { name: key })).toBeVisible();
  expect(await payoutCount(request)).toBe(before + 1);
  await console.screenshot('payout');
});

test('the form runs its own script under the Content-Security-Policy, and no script is refused', async ({ page }) => {
  const refused: string[] = [];
  page.on('console', (message) => {
    if (message.text().includes('Content Security Policy')) refused.push(message.text());
  });
  const console = new ConsolePage(page);
  await console.fillPayout('4.44');
  const policy = await page.evaluate(async () => (await fetch(location.href)).headers.get('content-security-policy'));
  expect(policy).toContain("frame-ancestors 'none'");
  expect(policy).toMatch(/script-src 'nonce-[^']+';/);
  // Kept from leaving the page, the submit shows what the page's script does: the button turns
  // into "Paying out…" and cannot be pressed again.
  await page.evaluate(() =>
    document.getElementById('new-payout')!.addEventListener('submit', (event) => event.preventDefault()));
  await console.payOutButton().click();
  await expect(page.locator('#new-payout button')).toBeDisabled();
  expect(refused).toEqual([]);
});

test('a burst of five submits of one form makes one payout, and all land on it', async ({ page, request }) => {
  const console = new ConsolePage(page);
  const before = await payoutCount(request);
  await console.fillPayout('2.22');
  const landings = await page.evaluate(async () => {
    const form = document.getElementById('new-payout') as HTMLFormElement;
    const submits = Array.from({ length: 5 }, () =>
      fetch(form.action, { method: 'POST', body: new URLSearchParams(new FormData(form) as any) }).then((r) => r.url));
    return Promise.all(submits);
  });
  expect(new Set(landings).size).toBe(1);
  expect(landings[0]).toMatch(/\/payouts\/po_/);
  expect(await payoutCount(request)).toBe(before + 1);
});

test('resubmitting after Back still makes one payout; a reloaded form is a new intent', async ({ page, request }) => {
  const console = new ConsolePage(page);
  const before = await payoutCount(request);
  await console.fillPayout('3.33');
  await console.payOutButton().click();
  const first = await console.expectOnPayoutPage();

  await page.goBack();
  await expect(console.payOutButton()).toBeVisible();
  await console.payOutButton().click();
  expect(await console.expectOnPayoutPage()).toBe(first);
  expect(await payoutCount(request)).toBe(before + 1);

  // A reloaded form is a new intent: the same payout again is first asked about (the repeat
  // guard), then made.
  await page.goto('/payouts/new');
  await page.reload();
  await console.fillPayout('3.33');
  await console.payOutButton().click();
  await expect(console.heading('This looks like a repeat')).toBeVisible();
  expect(await payoutCount(request)).toBe(before + 1);
  await page.getByRole('button', { name: 'Do it again' }).click();
  expect(await console.expectOnPayoutPage()).not.toBe(first);
  expect(await payoutCount(request)).toBe(before + 2);
});

test('with JavaScript off a double click still makes one payout', async ({ browser, request }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const page = await context.newPage();
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  const before = await payoutCount(request);
  await console.fillPayout('4.44');
  await console.payOutButton().dblclick();
  await console.expectOnPayoutPage();
  expect(await payoutCount(request)).toBe(before + 1);
  await context.close();
});

test('more than the balance is refused beside the form', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.fillPayout('99999999');
  await console.payOutButton().click();
  await expect(page.getByRole('alert')).toContainText('balance is lower than the payout amount');
  await console.screenshot('new-payout-refused');
});
