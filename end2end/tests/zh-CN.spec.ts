// The main journeys in Simplified Chinese (the zh-CN project asks for it with Accept-Language),
// finding what they use by id, name and data-testid. (The nav's switch: language.spec.ts.)
import { test, expect } from '@playwright/test';
import { ConsolePage, env, merchantEmail, supportEmail } from '../fixtures/console';
import { totp } from '../fixtures/totp';

const chinese = async (console: ConsolePage) => {
  await expect(console.page.locator('html')).toHaveAttribute('lang', 'zh-CN');
};

test('登录：错误的凭据不说明是哪一项，正确的进入概览', async ({ page }) => {
  const console = new ConsolePage(page);
  await page.goto('/login');
  await chinese(console);
  await expect(console.heading('登录')).toBeVisible();
  await console.screenshot('zh-CN/login');
  await page.locator('#email').fill(merchantEmail());
  await page.locator('#password').fill('not the password');
  await page.locator('form[action="/login"] button[type="submit"]').click();
  await expect(page.getByRole('alert')).toHaveText('登录凭据不正确，请检查后重试。');
  await console.screenshot('zh-CN/login-failed');
  await console.loginInAnyLanguage(merchantEmail());
  await expect(page).toHaveURL(/\/$/);
  await expect(console.heading('概览')).toBeVisible();
  await console.screenshot('zh-CN/overview');
});

test('新建提现：一次提交一笔提现，落在其页面，余额不足时以中文说明', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.loginInAnyLanguage(merchantEmail());
  await page.goto('/payouts/new');
  await chinese(console);
  // Test mode's magic IBANs, each outcome said in Chinese.
  await expect(page.getByRole('region', { name: '测试模式' })).toContainText('被合作银行拒绝（422 account_closed）');
  await console.screenshot('zh-CN/new-payout');
  await page.locator('#amount').fill('3.36');
  await page.locator('#currency').selectOption('EUR');
  await page.locator('#account_holder').fill('王小明');
  await page.locator('#iban').fill('DE89370400440532013000');
  const key = await page.locator('input[name="idempotency_key"]').inputValue();
  await page.locator('#new-payout button[type="submit"]').dblclick();
  await expect(console.heading(/^提现 po_/)).toBeVisible();
  await expect(page.getByRole('link', { name: key })).toBeVisible();
  await expect(page.locator('.facts')).toContainText('EUR 3.36');
  // The timeline's moments: badges and sentences in Chinese, the facts as they are.
  await expect(page.locator('ol.timeline .timeline-payout .badge')).toHaveText('提现');
  await expect(page.locator('ol.timeline .timeline-payout')).toContainText('已创建提现：EUR 3.36，端到端标识 kxp-');
  await expect(page.locator('ol.timeline .timeline-event').first()).toContainText('已向商户发送 payout.created');
  await console.screenshot('zh-CN/payout');

  await page.goto('/payouts/new');
  await page.locator('#amount').fill('99999999');
  await page.locator('#account_holder').fill('王小明');
  await page.locator('#iban').fill('DE89370400440532013000');
  await page.locator('#new-payout button[type="submit"]').click();
  await expect(page.getByRole('alert')).toContainText('可用余额低于提现金额：可用');
  await expect(page.locator('#amount')).toHaveValue('99999999');
});

test('查询幂等键：记录、关联资源与时间线', async ({ page, request }) => {
  const console = new ConsolePage(page);
  await console.loginInAnyLanguage(merchantEmail());
  const key = `zh-${Date.now()}`;
  const created = await request.post('/v1/orders', {
    headers: { Authorization: `Bearer ${env('KAADXPAY_MERCHANT_API_KEY')}`, 'Idempotency-Key': key },
    data: { amount: 500, currency: 'EUR' },
  });
  expect(created.status()).toBe(201);
  await page.goto('/keys');
  await chinese(console);
  await page.locator('#key').fill(key);
  await page.locator('form[action="/keys"] button[type="submit"]').click();
  await expect(page.locator('.key-record .badge').first()).toHaveText('已完成');
  await expect(page.getByRole('link', { name: /^订单 ord_/ })).toBeVisible();
  await console.screenshot('zh-CN/key');
  const missing = await page.goto(`/keys?key=${env('KAADXPAY_OTHER_KEY')}`);
  expect(missing?.status()).toBe(404);
  await expect(page.locator('p.empty')).toHaveText('未找到此幂等键的记录。幂等键按商户区分，保留 24 小时。');
});

test('每个商户页面都以中文呈现并截图', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.loginInAnyLanguage(merchantEmail());
  const pages: [string, string][] = [
    ['/payouts', 'payouts'],
    ['/orders', 'orders'],
    ['/keys', 'keys'],
    ['/requests', 'requests'],
    ['/webhooks', 'webhooks'],
    ['/reconciliation', 'reconciliation'],
    ['/settings/keys', 'api-keys'],
    ['/settings/team', 'team'],
    ['/settings/audit', 'audit'],
    ['/settings/security', 'security'],
    ['/settings/payouts', 'payout-settings'],
  ];
  for (const [path, name] of pages) {
    const response = await page.goto(path);
    expect(response?.status(), path).toBe(200);
    await chinese(console);
    await expect(page.locator('h1').first()).toBeVisible();
    await console.screenshot(`zh-CN/${name}`);
  }
  // A detail page of each list: the first row's link.
  for (const [list, name] of [['/orders', 'order'], ['/requests', 'request'], ['/reconciliation', 'reconciliation-run']]) {
    await page.goto(list);
    const first = page.locator('table tbody tr a').first();
    if ((await first.count()) > 0) {
      await first.click();
      await chinese(console);
      await console.screenshot(`zh-CN/${name}`);
    }
  }
  const unknown = await page.goto('/payouts/po_does_not_exist');
  expect(unknown?.status()).toBe(404);
  await expect(console.heading('页面不存在')).toBeVisible();
  await console.screenshot('zh-CN/not-found');
  // A path the console does not have at all: the same page, in the request's language.
  const nowhere = await page.goto('/no-such-page');
  expect(nowhere?.status()).toBe(404);
  await chinese(console);
  await expect(console.heading('页面不存在')).toBeVisible();
  await console.screenshot('zh-CN/unknown-path');
});

test('客服：搜索任意商户的幂等键，落在其时间线', async ({ page }) => {
  const console = new ConsolePage(page);
  await console.loginInAnyLanguage(supportEmail());
  await expect(console.heading('客服')).toBeVisible();
  await console.screenshot('zh-CN/support');
  await page.locator('#q').fill(env('KAADXPAY_OTHER_TRANSFER'));
  await page.locator('form[action="/support"] button[type="submit"]').click();
  await expect(console.heading(`提现 ${env('KAADXPAY_OTHER_PAYOUT')}`)).toBeVisible();
  await expect(page.locator('ol.timeline .timeline-request').first()).toContainText('POST /v1/payouts 返回 201 新请求，耗时');
  await console.screenshot('zh-CN/support-payout-timeline');
});

test('团队与两步验证：受邀成员以中文加入、开启两步验证并确认身份', async ({ page, browser }) => {
  const owner = new ConsolePage(page);
  await owner.loginInAnyLanguage(merchantEmail());
  await page.goto('/settings/team');
  await chinese(owner);
  const email = `zh-${Date.now()}@shop.test`;
  await page.locator('#invite-email').fill(email);
  await page.locator('#invite-role').selectOption('finance');
  await page.locator('form[action="/settings/team/invitations"] button[type="submit"]').click();
  const link = await page.locator('a.invitation-link').getAttribute('href');
  expect(link).toMatch(/^\/invitations\//);

  const context = await browser.newContext({
    locale: 'zh-CN',
    extraHTTPHeaders: { 'Accept-Language': 'zh-CN,zh;q=0.9' },
  });
  const member = new ConsolePage(await context.newPage());
  await member.page.goto(link!);
  await chinese(member);
  await member.screenshot('zh-CN/join');
  await member.page.locator('#password').fill('a good password');
  await member.page.locator('form:has(#password) button[type="submit"]').click();
  await expect(member.page.getByText(email)).toBeVisible();

  await member.page.goto('/settings/security');
  await chinese(member);
  const secret = (await member.page.getByTestId('totp-secret').textContent())!.trim();
  await member.page.locator('#code').fill(totp(secret));
  await member.page.locator('form[action="/settings/security/confirm"] button[type="submit"]').click();
  await expect(member.page.getByTestId('recovery-codes')).toBeVisible();
  await member.screenshot('zh-CN/recovery-codes');

  // Signing in again asks for the code after the password.
  await member.page.locator('form[action="/logout"] button[type="submit"]').click();
  await member.page.locator('#email').fill(email);
  await member.page.locator('#password').fill('a good password');
  await member.page.locator('form[action="/login"] button[type="submit"]').click();
  await expect(member.page.locator('form[action="/login/code"] #code')).toBeVisible();
  await chinese(member);
  await member.screenshot('zh-CN/sign-in-code');
  await member.page.locator('#code').fill(totp(secret, 30));
  await member.page.locator('form[action="/login/code"] button[type="submit"]').click();
  await expect(member.page.getByText(email)).toBeVisible();

  await member.page.goto('/step-up?back=%2Fpayouts%2Fnew');
  await chinese(member);
  await expect(member.page.locator('form[action="/step-up"] #code')).toBeVisible();
  await member.screenshot('zh-CN/step-up');
  await context.close();
});
