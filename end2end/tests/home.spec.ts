import { test, expect } from '@playwright/test';
import { ConsolePage } from '../fixtures/console';

test('the console start page is rendered on the server and styled', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open('/');
  await expect(consolePage.heading('Kaadxpay console')).toBeVisible();
  await expect(page.getByRole('link', { name: 'the OpenAPI document' })).toHaveAttribute('href', '/openapi.json');
  await consolePage.expectStylesheetApplied();
  await consolePage.screenshot('home');
});

test('the console works with JavaScript off', async ({ browser }) => {
  const context = await browser.newContext({ javaScriptEnabled: false });
  const consolePage = new ConsolePage(await context.newPage());
  await consolePage.open('/');
  await expect(consolePage.heading('Kaadxpay console')).toBeVisible();
  await context.close();
});

test('an unknown page says so', async ({ page }) => {
  const consolePage = new ConsolePage(page);
  await consolePage.open('/no-such-page');
  await expect(consolePage.heading('Page not found')).toBeVisible();
  await consolePage.screenshot('not-found');
});
