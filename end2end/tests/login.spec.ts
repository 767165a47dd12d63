import { test, expect } from '@playwright/test';
import { ConsolePage, merchantEmail, supportEmail } from '../fixtures/console';

test('a wrong password fails without saying which field was wrong', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail(), 'not the password');
  await expect(page).toHaveURL(/\/login\?error=invalid/);
  const alert = page.getByRole('alert');
  await expect(alert).toHaveText('Those credentials are not right. Check them and try again.');
  await console.screenshot('login-failed');
});

test('the right credentials land on the overview', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await expect(page).toHaveURL(/\/$/);
  await expect(console.heading('Overview')).toBeVisible();
  await expect(page.getByRole('img', { name: /idempotent requests in the last 24 hours/ })).toBeVisible();
  await console.screenshot('overview');
});

test('signing out ends the session', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.getByRole('button', { name: 'Sign out' }).click();
  await expect(page).toHaveURL(/\/login$/);
  await page.goto('/payouts');
  await expect(page).toHaveURL(/\/login$/);
});

test('pages need a signed-in user', async ({ page }) => {
  await page.goto('/payouts/new');
  await expect(page).toHaveURL(/\/login$/);
  await new ConsolePage(page).screenshot('login');
});

test('a support user lands on support', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(supportEmail());
  await expect(console.heading('Support')).toBeVisible();
});
