import { test, expect, type Page } from '@playwright/test';
import { ConsolePage, merchantEmail } from '../fixtures/console';
import { totp } from '../fixtures/totp';

const shot = (page: Page) => new ConsolePage(page);

test('a new member turns on two-step sign-in, then signs in with a code and once with a recovery code', async ({ page, browser }) => {
  // The owner invites a member, who joins in a browser of its own.
  const owner = new ConsolePage(page);
  await owner.login(merchantEmail());
  await page.goto('/settings/team');
  const email = `two-step-${Date.now()}@shop.test`;
  await page.getByLabel('Email', { exact: true }).fill(email);
  await page.getByLabel('Role', { exact: true }).selectOption('finance');
  await page.getByRole('button', { name: 'Invite' }).click();
  const link = await page.locator('a.invitation-link').getAttribute('href');
  const context = await browser.newContext();
  const member = await context.newPage();
  await member.goto(link!);
  await member.getByLabel('Password').fill('a good password');
  await shot(member).screenshot('join');
  await member.getByRole('button', { name: 'Join' }).click();

  // Enrolment: a QR code drawn by the server, the secret, a code; ten recovery codes, once.
  await member.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Security' }).click();
  await expect(member.locator('figure.qr svg')).toBeVisible();
  const secret = (await member.getByTestId('totp-secret').textContent())!.trim();
  expect(secret).toMatch(/^[A-Z2-7]{32}$/);
  await shot(member).screenshot('two-factor-enrol');
  await member.getByLabel('Authentication code').fill(totp(secret));
  await member.getByRole('button', { name: 'Turn on two-step sign-in' }).click();
  const codes = await member.getByTestId('recovery-codes').locator('code').allTextContents();
  expect(codes).toHaveLength(10);
  await member.reload();
  await expect(member.getByTestId('two-factor-on')).toContainText('10 recovery codes left');
  await expect(member.getByTestId('recovery-codes')).toHaveCount(0);

  // Sign-in: the password, then the code of the next step (the current one was used).
  const signIn = async (code: string) => {
    await member.getByRole('button', { name: 'Sign out' }).click();
    await member.getByLabel('Email').fill(email);
    await member.getByLabel('Password').fill('a good password');
    await member.getByRole('button', { name: 'Sign in' }).click();
    await shot(member).screenshot('sign-in-code');
    await member.getByLabel('Authentication code').fill(code);
    await member.getByRole('button', { name: 'Verify' }).click();
  };
  await signIn(totp(secret, 30));
  await expect(member.getByText(email)).toBeVisible();
  await signIn(codes[0]);
  await expect(member.getByText(email)).toBeVisible();
  await member.goto('/settings/security');
  await expect(member.getByTestId('two-factor-on')).toContainText('9 recovery codes left');
  await member.goto('/step-up?back=%2Fpayouts%2Fnew');
  await expect(member.getByRole('heading', { name: 'Confirm it is you' })).toBeVisible();
  await shot(member).screenshot('step-up');

  // A recovery code works once.
  await member.getByRole('button', { name: 'Sign out' }).click();
  await member.getByLabel('Email').fill(email);
  await member.getByLabel('Password').fill('a good password');
  await member.getByRole('button', { name: 'Sign in' }).click();
  await member.getByLabel('Authentication code').fill(codes[0]);
  await member.getByRole('button', { name: 'Verify' }).click();
  await expect(member.getByRole('alert')).toContainText('That code is not right');
  await context.close();

  // The owner's audit log shows the enrolment and each second factor used.
  await page.goto('/settings/audit?action=two_factor.enrolled');
  await expect(page.getByRole('row', { name: /two_factor\.enrolled/ }).first()).toContainText(email);
  await page.goto('/settings/audit?action=user.signed_in');
  await expect(page.getByRole('row', { name: /recovery_code/ }).first()).toContainText(email);
  await expect(page.getByRole('row', { name: /"totp"/ }).first()).toContainText(email);
});
