// The nav's language switch, from an English browser: Chinese at once, after a reload and on
// the next page, and back to English.
import { test, expect } from '@playwright/test';
import { ConsolePage, merchantEmail } from '../fixtures/console';

test('the nav switch turns the console Chinese, and a reload keeps it', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.login(merchantEmail());
  await page.goto('/payouts?status=paid');
  await expect(console.heading('Payouts')).toBeVisible();
  await page.getByTestId('language-zh-CN').click();
  await expect(page).toHaveURL(/\/payouts\?status=paid$/);
  await expect(page.locator('html')).toHaveAttribute('lang', 'zh-CN');
  await expect(console.heading('提现')).toBeVisible();
  await page.reload();
  await expect(console.heading('提现')).toBeVisible();
  await page.goto('/orders');
  await expect(console.heading('订单')).toBeVisible();
  await page.getByTestId('language-en').click();
  await expect(console.heading('Orders')).toBeVisible();
  await expect(page.locator('html')).toHaveAttribute('lang', 'en');
});
