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

  // The partner booked the duplicated one twice: on its timeline, the partner's events about
  // the second transfer say it is a duplicate that reconciliation reverses; those about the
  // payout's own transfer say nothing of the kind.
  const duplicated = made.find(([, iban]) => iban === 'GB83KXPY00000000000005')![0];
  const partnerEvents = page.locator('ol.timeline li.timeline-partner_webhook');
  const labelled = partnerEvents.filter({ has: page.locator('strong.duplicate') });
  await expect(async () => {
    await page.goto(duplicated);
    await expect(labelled.first()).toBeVisible({ timeout: 500 });
  }).toPass({ timeout: 30_000 });
  const own = (await page.locator('dl.facts dt:text-is("Partner transfer") + dd').textContent())!.trim();
  expect(own).toMatch(/\S/);
  await expect(labelled.locator('strong.duplicate')).toHaveText(
    Array(await labelled.count()).fill('duplicate transfer: reconciliation reverses it'));
  for (const line of await labelled.allTextContents()) expect(line).not.toContain(own);
  await expect(partnerEvents.filter({ hasText: own }).locator('strong.duplicate')).toHaveCount(0);
  await expect(partnerEvents.filter({ hasText: own })).not.toHaveCount(0);
  await console.screenshot('duplicate-on-timeline');

  // Test mode lets the merchant run today's reconciliation: the duplicate is found and reversed.
  await page.goto('/reconciliation');
  await page.getByLabel('Day (UTC)').fill(new Date().toISOString().slice(0, 10));
  await page.getByRole('button', { name: 'Run reconciliation now' }).click();
  await expect(page).toHaveURL(/\/reconciliation\/rec_/);
  await expect(page.getByRole('row', { name: /duplicate/ }).first()).toContainText('reversed');
  // Once reversed, the duplicate's label on the payout's timeline says so.
  await page.goto(duplicated);
  await expect(labelled.locator('strong.duplicate').first()).toHaveText('duplicate transfer: reconciliation reversed it');

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
