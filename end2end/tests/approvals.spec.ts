import { test, expect } from '@playwright/test';
import { ConsolePage, merchantEmail } from '../fixtures/console';
import { totp } from '../fixtures/totp';

// Maker-checker (API.md §4, §11), issue 19's journey: the owner sets a threshold and invites a
// finance member, who turns on two-step sign-in (codes computed from the secret the page shows),
// makes a payout above the threshold and cannot approve it; the owner approves it, the payout
// is paid, and the audit log shows every step in order. The threshold is removed at the end, so
// that the other journeys' payouts need no approval.
test('a finance member with two-step sign-in makes a large payout that waits for the owner, who approves it, and it is paid', async ({ page, browser }) => {
  test.slow(); // two browsers, an invitation, an enrolment, a step-up and the payout worker
  const owner = new ConsolePage(page);
  await owner.login(merchantEmail());
  const nav = page.getByRole('navigation', { name: 'Main' });
  await nav.getByRole('link', { name: 'Payout approvals' }).click();
  await expect(owner.heading('Payout approvals')).toBeVisible();
  await page.getByLabel('Approval threshold').fill('2000.00');
  await page.getByLabel('Currency').selectOption('EUR');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByRole('row', { name: /EUR/ }).last()).toContainText('2,000.00 EUR');
  await owner.screenshot('approval-thresholds');

  // A finance member joins by invitation.
  await nav.getByRole('link', { name: 'Team' }).click();
  const email = `maker-${Date.now()}@shop.test`;
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('finance');
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = await page.locator('a.invitation-link').getAttribute('href');
  const context = await browser.newContext();
  const maker = await context.newPage();
  await maker.goto(link!);
  await maker.getByLabel('Password').fill('a good password');
  await maker.getByRole('button', { name: 'Join' }).click();
  await expect(maker.getByText(email)).toBeVisible();

  // The member turns on two-step sign-in.
  await maker.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
  const secret = (await maker.getByTestId('totp-secret').textContent())!.trim();
  await maker.getByLabel('Authentication code').fill(totp(secret));
  await maker.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  await expect(maker.getByTestId('recovery-codes').locator('code')).toHaveCount(10);

  // The member pays out more than the threshold: the payout waits, and it offers no Approve.
  const makerConsole = new ConsolePage(maker);
  await makerConsole.fillPayout('2500.00');
  await makerConsole.payOutButton().click();
  const payoutUrl = await makerConsole.expectOnPayoutPage();
  await expect(maker.locator('dl.facts .badge')).toHaveText('pending_approval');
  await expect(maker.getByRole('button', { name: 'Approve' })).toHaveCount(0);
  await expect(maker.getByText('awaits approval by another member')).toBeVisible();
  await makerConsole.screenshot('payout-awaiting-approval');
  await context.close();

  // The owner approves it; the worker pays it.
  await page.goto(payoutUrl);
  await expect(page.getByRole('button', { name: 'Reject' })).toBeVisible();
  await page.getByRole('button', { name: 'Approve' }).click();
  await expect(owner.heading(/^Payout po_/)).toBeVisible();
  await expect(page.getByText('Approved or rejected by')).toBeVisible();
  await expect(async () => {
    await page.reload();
    await expect(page.locator('dl.facts .badge')).toHaveText('paid');
  }).toPass({ timeout: 30_000 });
  await owner.screenshot('payout-approved-and-paid');

  // The audit log has every step, newest first: the order is the journey's, read backwards.
  await nav.getByRole('link', { name: 'Audit log' }).click();
  await expect(page.getByRole('row', { name: /payout\.approved/ }).first()).toBeVisible();
  const rows = await page.locator('table tbody tr').allTextContents();
  const byOwner = ['payout.approved', 'payout_threshold.changed'];
  const newest = (action: string) => rows.findIndex((row) => row.includes(action) && (byOwner.includes(action) || row.includes(email)));
  const steps = ['member.invited', 'member.joined', 'two_factor.enrolled', 'payout.created', 'payout.approved'].map(newest);
  expect(steps.every((index) => index >= 0), `${steps} in ${rows.join('\n')}`).toBe(true);
  expect([...steps].sort((a, b) => b - a)).toEqual(steps);
  expect(newest('payout_threshold.changed')).toBeGreaterThan(steps[0]);
  await owner.screenshot('audit-after-approval');
  await nav.getByRole('link', { name: 'Payout approvals' }).click();
  await page.getByLabel('Approval threshold').fill('');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.getByText('No threshold is set')).toBeVisible();
});
