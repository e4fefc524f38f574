import type { BrowserContext, Page } from 'playwright-core';
import { computeToken } from '../../src/core/auth/api-token';
import { TEST_MASTER_KEY } from '../support/harness';
import { screenshot } from '../support/browser';
import {
  CONSOLE,
  openConsole,
  createOperator,
  signInToConsole,
  startWebHarness,
  submit,
  type TestOperator,
  type WebHarness,
} from '../support/web';

describe('console journeys in a real browser', () => {
  let h: WebHarness;
  let admin: TestOperator;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    h = await startWebHarness();
    ({ admin, context, page } = await openConsole(h));
  });
  afterAll(async () => {
    await context.close();
    await h.close();
  });

  it('creates a reseller and shows its API key once, a key the API accepts', async () => {
    await page.goto(`${CONSOLE}/resellers/new`);
    await page.fill('#email', 'Agency@Example.com');
    await page.selectOption('#group', 'default');
    await page.fill('#credit', '12.50');
    await submit(page, 'form[action$="/resellers"] button[type=submit]');
    const apiKey = (await page.textContent('#api-key'))!.trim();
    expect(await page.textContent('#api-username')).toBe('agency@example.com');
    await screenshot(page, 'console-reseller-created');
    const balance = await h.http
      .get('/billing/credits')
      .set({ username: 'agency@example.com', token: computeToken('agency@example.com', apiKey, h.clock.now()) });
    expect(balance.status).toBe(200);
    expect(balance.body).toBe('12.50');
    // Shown once: the reseller's page never shows it again.
    await page.click('text=Go to the reseller');
    await page.waitForSelector('#balance');
    expect(await page.content()).not.toContain(apiKey);
  });

  it('adds credit with a reason and finds it in the statement and the audit log', async () => {
    await page.goto(`${CONSOLE}/resellers?search=reseller%40`);
    await Promise.all([page.waitForEvent('load'), page.click('text=reseller@example.com')]);
    await page.fill('#amount', '25.00');
    await page.fill('#reason', 'bank transfer 2026-0042');
    await submit(page, '#credit-form button[type=submit]');
    expect(await page.textContent('#balance')).toBe('125.00');
    await Promise.all([page.waitForEvent('load'), page.click('a[href$="/statement"]')]);
    const statement = await page.textContent('#statement');
    expect(statement).toContain('bank transfer 2026-0042');
    expect(statement).toContain('125.00');
    await screenshot(page, 'console-statement');
    const audit = await h.module.services.audit.find({ actionPrefix: 'reseller.credit', limit: 5 });
    expect(audit[0]).toMatchObject({
      action: 'reseller.credit.add',
      actor: { kind: 'operator', label: admin.email },
      before: { balance: '100.00' },
      after: { balance: '125.00', amount: '25.00', reason: 'bank transfer 2026-0042' },
    });
  });

  it('refuses a credit change without a reason and changes nothing', async () => {
    const reseller = await h.module.services.resellers.byEmail('reseller@example.com');
    const before = await h.module.services.credit.balance(reseller.id);
    await page.goto(`${CONSOLE}/resellers/${reseller.id}`);
    await page.fill('#amount', '5.00');
    await page.fill('#reason', '   ');
    await page.$eval('#reason', (el) => el.removeAttribute('required'));
    await submit(page, '#credit-form button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('Give the reason');
    expect(await h.module.services.credit.balance(reseller.id)).toBe(before);
  });

  it('lists resellers with filters and exports them as CSV', async () => {
    await page.goto(`${CONSOLE}/resellers`);
    await screenshot(page, 'console-resellers');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('text=CSV')]);
    const text = await (await download.createReadStream())
      .toArray()
      .then((chunks) => Buffer.concat(chunks).toString('utf8'));
    const rows = text
      .trim()
      .split('\r\n')
      .map((line) => line.split(','));
    expect(rows[0]).toEqual(['email', 'group', 'status', 'balance', 'created_at']);
    expect(rows.map((r) => r[0])).toEqual(expect.arrayContaining(['agency@example.com', 'reseller@example.com']));
  });

  it('edits a TLD price in the matrix and the API answers the new price', async () => {
    await page.goto(`${CONSOLE}/groups/default`);
    const row = page.locator('#price-matrix tr[data-tld=".com"]');
    await row.locator('input[name=register]').fill('1=11.00, 2=21.00');
    await Promise.all([page.waitForEvent('load'), row.locator('form[action$="/prices"] button[type=submit]').click()]);
    expect(await page.textContent('.notice.ok')).toContain('prices are saved');
    await screenshot(page, 'console-group-prices');
    const pricing = await h.http
      .get('/order/pricing/domains/register')
      .query({ domain: 'example.com' })
      .set(h.headers());
    expect(pricing.status).toBe(200);
    expect(pricing.body).toMatchObject({ 1: '11.00', 2: '21.00' });
    const audit = await h.module.services.audit.find({ actionPrefix: 'tld.set', limit: 1 });
    expect(audit[0]?.after).toMatchObject({ tld: '.com' });
  });

  it('refuses a malformed price list with the reason and keeps the old prices', async () => {
    await page.goto(`${CONSOLE}/groups/default`);
    const row = page.locator('#price-matrix tr[data-tld=".net"]');
    await row.locator('input[name=register]').fill('one year for ten');
    await Promise.all([page.waitForEvent('load'), row.locator('form[action$="/prices"] button[type=submit]').click()]);
    expect(await page.textContent('[role=alert]')).toContain('years=price pairs');
    const pricing = await h.http
      .get('/order/pricing/domains/register')
      .query({ domain: 'example.net' })
      .set(h.headers());
    expect(pricing.body).toMatchObject({ 1: '10.00' });
  });

  it('shows the cost import difference, then applies it', async () => {
    await page.goto(`${CONSOLE}/groups/default`);
    await page.selectOption('#imp-registrar', 'sandbox');
    await page.fill('#imp-percent', '20');
    await page.fill('#imp-tlds', '.org');
    await submit(page, '#import-form button[type=submit]');
    const diff = await page.textContent('#import-diff');
    expect(diff).toContain('.org');
    expect(await page.$('#import-applied')).toBeNull();
    const before = await h.http
      .get('/order/pricing/domains/register')
      .query({ domain: 'example.org' })
      .set(h.headers());
    expect(before.body).toMatchObject({ 1: '10.00' });
    await screenshot(page, 'console-cost-import');
    page.once('dialog', (dialog) => dialog.accept());
    await submit(page, '#apply-import');
    expect(await page.$('#import-applied')).not.toBeNull();
    const after = await h.http.get('/order/pricing/domains/register').query({ domain: 'example.org' }).set(h.headers());
    expect(after.body).not.toEqual(before.body);
  });

  it('shows the dashboard figures and the settings with secrets masked', async () => {
    await page.goto(`${CONSOLE}/`);
    expect(await page.textContent('#figure-resellers')).toBe('2');
    await screenshot(page, 'console-dashboard');
    await page.goto(`${CONSOLE}/settings`);
    const settings = await page.textContent('#settings');
    expect(settings).toContain('masterKey');
    expect(settings).toContain('(set)');
    expect(await page.content()).not.toContain(TEST_MASTER_KEY);
  });

  it('lets a viewer see every page and offers it no change', async () => {
    const viewer = await createOperator(h, 'viewer@example.com', 'viewer', { withTotp: false });
    const viewerContext = await h.newContext();
    try {
      const viewerPage = await viewerContext.newPage();
      await signInToConsole(viewerPage, h, viewer);
      const reseller = await h.module.services.resellers.byEmail('reseller@example.com');
      for (const path of [
        '/',
        '/resellers',
        `/resellers/${reseller.id}`,
        `/resellers/${reseller.id}/statement`,
        '/orders',
        '/domains',
        '/groups',
        '/groups/default',
        '/api-log',
        '/audit',
        '/settings',
        '/sessions',
      ]) {
        const response = await viewerPage.goto(`${CONSOLE}${path}`);
        expect([path, response?.status()]).toEqual([path, 200]);
        const forms = await viewerPage.$$eval('main form[method=post]', (found) => found.length);
        expect([path, forms]).toEqual([path, 0]);
      }
    } finally {
      await viewerContext.close();
    }
  });
});
