import { test, expect } from '@playwright/test';
import fs from 'node:fs';
import { ConsolePage, merchantEmail } from '../fixtures/console';

// What each magic IBAN of test mode does (docs/api.md, "Magic IBANs"), as a payout's status.
const outcomes: [string, string][] = [
  ['GB94KXPY00000000000001', 'paid'],
  ['GB67KXPY00000000000002', 'failed'],
  ['GB40KXPY00000000000003', 'reversed'],
  ['GB13KXPY00000000000004', 'paid'],
  ['GB83KXPY00000000000005', 'paid'],
  ['GB56KXPY00000000000006', 'in_transit'],
];

test('QA pays out to every magic IBAN, watches each outcome, reconciles and exports, in the console alone', async ({ page }) => {
  test.setTimeout(120_000);
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/payouts/new');
  const notice = page.getByRole('region', { name: 'Test mode' });
  await expect(notice).toBeVisible();
  for (const [iban] of outcomes) await expect(notice).toContainText(iban);

  const made: [string, string, string][] = [];
  for (const [iban, status] of outcomes) {
    await console.fillPayout('1.00', 'QA Tester', iban);
    await console.payOutButton().click();
    made.push([await console.expectOnPayoutPage(), iban, status]);
  }
  for (const [url, iban, status] of made) {
    await expect(async () => {
      await page.goto(url);
      await expect(page.locator('dl.facts .badge').first(), iban).toHaveText(status, { timeout: 500 });
    }).toPass({ timeout: 45_000 });
  }
  await console.screenshot('magic-ibans');

  // Test mode lets the merchant run today's reconciliation: the duplicate is found and reversed.
  await page.goto('/reconciliation');
  await page.getByLabel('Day (UTC)').fill(new Date().toISOString().slice(0, 10));
  await page.getByRole('button', { name: 'Run reconciliation now' }).click();
  await expect(page).toHaveURL(/\/reconciliation\/rec_/);
  await expect(page.getByRole('row', { name: /duplicate/ }).first()).toContainText('reversed');

  // The export holds every one of them, IBANs masked to their last 4.
  await page.goto('/payouts');
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export CSV' }).click(),
  ]);
  const csv = fs.readFileSync((await download.path())!, 'utf8');
  expect(csv.split('\r\n')[0]).toContain('amount_decimal');
  for (const [, iban, status] of made) {
    const line = csv.split('\r\n').find((row) => row.includes(`****${iban.slice(-4)}`));
    expect(line, iban).toBeDefined();
    expect(line).toContain(`,${status},`);
    expect(line).not.toContain(iban);
  }
});
