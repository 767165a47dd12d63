import { test, expect } from '@playwright/test';
import { ConsolePage, merchantEmail } from '../fixtures/console';

test('an owner invites a finance member, who joins by the link and sees what finance may do', async ({ page, browser }) => {
  const owner = new ConsolePage(page);
  await owner.login(merchantEmail());
  await page.getByRole('link', { name: 'Team' }).click();
  await expect(owner.heading('Team')).toBeVisible();
  const email = `finance-${Date.now()}@shop.test`;
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('finance');
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = await page.locator('a.invitation-link').getAttribute('href');
  expect(link).toMatch(/^\/invitations\//);
  await expect(page.getByRole('row', { name: new RegExp(email) })).toContainText('finance');
  await owner.screenshot('team');

  // The invitee, in a browser of its own, with no session.
  const context = await browser.newContext();
  const invitee = await context.newPage();
  await invitee.goto(link!);
  await expect(invitee.getByText(`You are invited as finance with ${email}`)).toBeVisible();
  await invitee.getByLabel('Password').fill('a good password');
  await invitee.getByRole('button', { name: 'Join' }).click();
  await expect(invitee.getByText(email)).toBeVisible();
  const nav = invitee.getByRole('navigation', { name: 'Main' });
  await expect(nav.getByRole('link', { name: 'Payouts' })).toBeVisible();
  await expect(nav.getByRole('link', { name: 'Team' })).toHaveCount(0);
  await invitee.goto('/payouts/new');
  await expect(invitee.getByRole('button', { name: 'Pay out' })).toBeVisible();
  const refused = await invitee.goto('/settings/team');
  expect(refused?.status()).toBe(403);
  await expect(nav.getByRole('link', { name: 'Audit log' })).toHaveCount(0);
  const audit = await invitee.goto('/settings/audit');
  expect(audit?.status()).toBe(403);
  await expect(invitee.getByText('Your role may not see the audit log')).toBeVisible();

  // The link worked once.
  const again = await invitee.goto(link!);
  expect(again?.status()).toBe(410);
  await context.close();

  // The owner's audit log shows the invitation and the join, by whom and from where.
  await page.getByRole('link', { name: 'Audit log' }).click();
  await expect(owner.heading('Audit log')).toBeVisible();
  await expect(page.getByRole('row', { name: /member\.joined/ }).first()).toContainText(email);
  await expect(page.getByRole('row', { name: /member\.invited/ }).first()).toContainText(email);
  await owner.screenshot('audit-after-invitation');
});
