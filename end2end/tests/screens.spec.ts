// Every console page, in both languages, at 1280 and 390 px (API.md §9 "Forms and people"):
// a screenshot of each in test-results/screens/, and a failure when a page scrolls sideways,
// when a table's column or row action is outside the window, when a page has no title of its
// own, or when axe-core finds a WCAG 2.1 A/AA violation; the pages only a form leads to
// (confirmation, repeat, invitation, step-up, the second step of signing in) are looked at as
// the form left them. One browser context per language, each page loaded once and looked at in
// both widths, so the tour stays short.
import { test, expect, type Browser, type Page } from '@playwright/test';
import AxeBuilder from '@axe-core/playwright';
import { env, merchantEmail, supportEmail, password } from '../fixtures/console';
import { totp } from '../fixtures/totp';

const LANGUAGES = ['en', 'zh-CN'] as const;
const WIDE = { width: 1280, height: 900 };
const NARROW = { width: 390, height: 844 };
const WCAG = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** A browser context that speaks `lang` (the language switch's cookie), at 1280 px. */
async function contextIn(browser: Browser, lang: string, javaScriptEnabled = true) {
  const context = await browser.newContext({ viewport: WIDE, javaScriptEnabled });
  await context.addCookies([{ name: 'kaadxpay_lang', value: lang, url: env('KAADXPAY_BASE_URL') }]);
  return context;
}

/** Signs in by the form's field ids, whatever the language. */
async function signIn(page: Page, email: string) {
  await page.goto('/login');
  await page.locator('#email').fill(email);
  await page.locator('#password').fill(password());
  await page.locator('form[action="/login"] button[type="submit"]').click();
  await expect(page.locator('form.signout')).toHaveCount(1);
}

/** The first link on `path` whose address starts with `prefix` (a row's own page), if any. */
async function firstLink(page: Page, path: string, prefix: string): Promise<string | undefined> {
  await page.goto(path);
  const link = page.locator(`main a[href^="${prefix}"]`).first();
  return (await link.count()) ? (await link.getAttribute('href'))! : undefined;
}

/** What is wrong with the layout of the page as shown now. */
async function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = window.innerWidth;
    const scrolled = document.scrollingElement!.scrollWidth;
    if (scrolled > width) problems.push(`scrolls sideways (${scrolled} px wide)`);
    const wide = width > 700;
    // At 390 px the tables' headers are kept for screen readers only, so only the cells count.
    const selector = wide ? 'table th, table td :is(a, button, select, input)' : 'table td :is(a, button, select, input)';
    for (const element of document.querySelectorAll<HTMLElement>(selector)) {
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (box.left < -0.5 || box.right > width + 0.5) {
        const what = element.textContent?.trim().slice(0, 40) || element.outerHTML.slice(0, 60);
        problems.push(`"${what}" outside the window (${Math.round(box.left)}–${Math.round(box.right)} px)`);
      }
    }
    return problems;
  });
}

/**
 * English words left on a Chinese page: lowercase words (codes, statuses, actions, units such
 * as "paid", "reversed", "ms") and "HTTP" or "URL", outside code, preformatted text and
 * anything marked as in another language. Identifiers and data (ids, keys, e-mails, URLs, event
 * types: anything with a digit, "_", ".", "@", "/" or ":") and capitalised names (people and
 * products) are not words of the console's and are left alone.
 */
async function englishLeft(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const found = new Set<string>();
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    for (let node = walker.nextNode(); node; node = walker.nextNode()) {
      const parent = node.parentElement;
      if (!parent || parent.closest('code, pre, script, style, svg, [translate="no"], [lang]:not([lang^="zh"])')) continue;
      if (!parent.checkVisibility()) continue;
      // Text between backticks is a command or a code, as in Markdown.
      const prose = (node.textContent ?? '').replace(/`[^`]*`/g, ' ');
      for (const token of prose.split(/[\s,，。：；（）()、“”"'+·→…]+/)) {
        if (!token || /[0-9_.@/:\-]/.test(token) || !/^[A-Za-z]+$/.test(token)) continue;
        if (token === 'curl') continue; // a program's name, kept as the glossary keeps names
        if (/^[a-z]/.test(token) || token === 'HTTP' || token === 'URL') found.add(`${token} (in "${node.textContent!.trim().slice(0, 60)}")`);
      }
    }
    return [...found];
  });
}

/** axe-core's WCAG 2.1 A/AA violations on the page as shown now. */
async function violations(page: Page): Promise<string[]> {
  const result = await new AxeBuilder({ page }).withTags(WCAG).analyze();
  return result.violations.map(
    (violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).slice(0, 3).join(', ')}`,
  );
}

/**
 * What is wrong with how the menu marks the page: where there is a menu, exactly one link has
 * `aria-current="page"`, the page's own or else its section's (the longest link that is a
 * folder of the page's path: `/payouts` for `/payouts/po_1`).
 */
async function menuMarking(page: Page): Promise<string | undefined> {
  return page.evaluate(() => {
    const links = [...document.querySelectorAll<HTMLAnchorElement>('nav a')];
    if (links.length === 0) return undefined;
    const path = location.pathname;
    const within = (href: string) => href === path || (href !== '/' && path.startsWith(`${href}/`));
    const expected = links.map((link) => link.getAttribute('href')!).filter(within).sort((a, b) => b.length - a.length)[0];
    const marked = links.filter((link) => link.getAttribute('aria-current') === 'page').map((link) => link.getAttribute('href'));
    const wanted = expected ? [expected] : [];
    return JSON.stringify(marked) === JSON.stringify(wanted) ? undefined : `menu marks ${JSON.stringify(marked)}, not ${JSON.stringify(wanted)}`;
  });
}

/** A name for a screenshot file. */
const fileName = (path: string) =>
  (path === '/' ? 'overview' : path.replace(/^\//, '').replace(/[^A-Za-z0-9_-]+/g, '-')).slice(0, 80);

/** Looks at each of `paths` in both widths: screenshot, layout, title, menu and axe. */
async function tour(page: Page, lang: string, who: string, paths: string[], problems: string[]) {
  const titles = new Map<string, string>();
  for (const path of paths) {
    await page.setViewportSize(WIDE);
    await page.goto(path);
    const title = await page.title();
    const holder = titles.get(title);
    if (holder) problems.push(`${lang} ${path}: same title as ${holder} ("${title}")`);
    titles.set(title, path);
    await look(page, lang, who, path, problems);
  }
}

/** Looks at the page shown now, `path`, in both widths: screenshot, layout, menu and axe. */
async function look(page: Page, lang: string, who: string, path: string, problems: string[]) {
  const marking = await menuMarking(page);
  if (marking) problems.push(`${lang} ${path}: ${marking}`);
  if (lang !== 'en') for (const word of await englishLeft(page)) problems.push(`${lang} ${path}: English left: ${word}`);
  for (const size of [WIDE, NARROW]) {
    await page.setViewportSize(size);
    const where = `${lang} ${size.width}px ${path}`;
    await page.screenshot({ path: `test-results/screens/${lang}/${size.width}/${who}-${fileName(path)}.png`, fullPage: true });
    for (const problem of await layoutProblems(page)) problems.push(`${where}: ${problem}`);
    for (const violation of await violations(page)) problems.push(`${where}: axe ${violation}`);
  }
  await page.setViewportSize(WIDE);
}

/**
 * The pages only a form leads to, each looked at as the form left it (loaded again, it finds
 * nothing kept): a destructive action's confirmation (not confirmed), the repeat guard's page
 * (a second payout of the same amount, `amount` of its own per language), and an invitation's.
 */
async function tourOfFormPages(page: Page, lang: string, amount: string, problems: string[]) {
  await page.goto('/settings/keys');
  await page.locator('form[action$="/revoke"] button').first().click();
  await expect(page).toHaveURL(/\/confirm$/);
  await look(page, lang, 'merchant', '/confirm', problems);

  for (const attempt of [1, 2]) {
    await page.goto('/payouts/new');
    await page.locator('#amount').fill(amount);
    await page.locator('#account_holder').fill('Ada Lovelace');
    await page.locator('#iban').fill('DE89370400440532013000');
    await page.locator('#new-payout button[type="submit"]').click();
    await expect(page, `payout ${attempt}`).toHaveURL(attempt === 1 ? /\/payouts\/po_/ : /\/repeat$/);
  }
  await look(page, lang, 'merchant', '/repeat', problems);

  await page.goto('/settings/team');
  const email = `screens-${lang}-${Date.now()}@shop.test`;
  await page.locator('#invite-email').fill(email);
  await page.locator('#invite-role').selectOption('finance');
  await page.locator('form[action="/settings/team/invitations"] button[type="submit"]').click();
  const link = await page.locator('a.invitation-link').getAttribute('href');
  await page.goto(link!);
  await look(page, lang, 'merchant', '/invitations/token', problems);
  await tourOfCodePages(page.context().browser()!, lang, link!, email, problems);
}

/**
 * The pages that ask for a code: the member the invitation makes joins in one browser and turns
 * two-step sign-in on in another, so the first has no recent code and a payout asks for one
 * (`/step-up`), and the second's next sign-in asks for one (the second step of `/login`).
 */
async function tourOfCodePages(browser: Browser, lang: string, link: string, email: string, problems: string[]) {
  const memberPassword = 'a good password';
  const joined = await (await contextIn(browser, lang)).newPage();
  await joined.goto(link);
  await joined.locator('#password').fill(memberPassword);
  await joined.locator(`form[action="${new URL(link, env('KAADXPAY_BASE_URL')).pathname}"] button[type="submit"]`).click();
  await expect(joined.locator('form.signout')).toHaveCount(1);

  const enrolling = await (await contextIn(browser, lang)).newPage();
  const signInAsMember = async () => {
    await enrolling.goto('/login');
    await enrolling.locator('#email').fill(email);
    await enrolling.locator('#password').fill(memberPassword);
    await enrolling.locator('form[action="/login"] button[type="submit"]').click();
  };
  await signInAsMember();
  await enrolling.goto('/settings/security');
  const secret = (await enrolling.getByTestId('totp-secret').textContent())!.trim();
  await enrolling.locator('#code').fill(totp(secret));
  await enrolling.locator('form[action="/settings/security/confirm"] button[type="submit"]').click();
  await expect(enrolling.getByTestId('recovery-codes')).toBeVisible();

  await joined.goto('/payouts/new');
  await joined.locator('#amount').fill('5.55');
  await joined.locator('#account_holder').fill('Mary Somerville');
  await joined.locator('#iban').fill('DE89370400440532013000');
  await joined.locator('#new-payout button[type="submit"]').click();
  await expect(joined).toHaveURL(/\/step-up/);
  await look(joined, lang, 'member', '/step-up', problems);

  await enrolling.context().clearCookies({ name: 'kaadxpay_session' });
  await signInAsMember();
  await expect(enrolling.locator('form[action="/login/code"]')).toHaveCount(1);
  await look(enrolling, lang, 'member', '/login-code', problems);

  await joined.context().close();
  await enrolling.context().close();
}

for (const lang of LANGUAGES) {
  test(`every page in ${lang} fits at 1280 and 390 px, has its title and passes axe`, async ({ browser }) => {
    test.setTimeout(8 * 60_000);
    const problems: string[] = [];
    const context = await contextIn(browser, lang);
    const page = await context.newPage();

    await tour(page, lang, 'visitor', ['/login', '/no-such-page'], problems);

    await signIn(page, merchantEmail());
    const lists = ['/', '/payouts', '/payouts/new', '/payouts/approvals', '/orders', '/balance', '/balance/add-funds',
      '/keys', '/requests', '/webhooks', '/reconciliation', '/settings/keys', '/settings/team', '/settings/audit',
      '/settings/payouts', '/settings/security', '/settings/profile'];
    const payout = await firstLink(page, '/payouts', '/payouts/po_');
    const details = [
      payout,
      payout && (await firstLink(page, payout, '/keys/')),
      await firstLink(page, '/orders', '/orders/'),
      await firstLink(page, '/requests', '/requests/'),
    ];
    expect(details.every(Boolean), `a payout, a key, an order and a request to look at: ${details}`).toBe(true);
    await tour(page, lang, 'merchant', [...lists, ...(details as string[])], problems);
    await tourOfFormPages(page, lang, lang === 'en' ? '8.01' : '8.02', problems);

    await context.clearCookies({ name: 'kaadxpay_session' });
    await signIn(page, supportEmail());
    // Every key of the other merchant's whose name starts with "b-": a list of hits.
    const search = '/support?q=b-';
    const timeline = await firstLink(page, search, '/support/timeline');
    let run = await firstLink(page, '/reconciliation', '/reconciliation/');
    if (!run) {
      await page.locator('#date').fill(new Date(Date.now() - 86_400_000).toISOString().slice(0, 10));
      await page.locator('#run-now button[type="submit"]').click();
      run = await firstLink(page, '/reconciliation', '/reconciliation/');
    }
    expect(timeline && run, 'a timeline and a reconciliation run to look at').toBeTruthy();
    await tour(page, lang, 'support', [search, timeline!, '/reconciliation', run!, '/settings/security'], problems);

    await context.close();
    expect(problems).toEqual([]);
  });
}

test('at 390 px the menu collapses, and opens without JavaScript', async ({ browser }) => {
  const context = await contextIn(browser, 'en', false);
  const page = await context.newPage();
  await signIn(page, merchantEmail());
  const menu = page.getByRole('navigation', { name: 'Main' });
  await expect(menu).toBeVisible();
  await expect(page.getByText('Menu', { exact: true })).toBeHidden();
  await page.setViewportSize(NARROW);
  await expect(menu).toBeHidden();
  await page.getByText('Menu', { exact: true }).click();
  await expect(menu).toBeVisible();
  await page.screenshot({ path: 'test-results/screens/en/390/menu-open.png', fullPage: true });
  await menu.getByRole('link', { name: 'Payouts' }).click();
  await expect(page).toHaveURL(/\/payouts$/);
  await expect(page.locator('nav [aria-current="page"]')).toHaveText('Payouts');
  await context.close();
});
