import type { BrowserContext, Page } from 'playwright-core';
import { computeToken } from '../../src/core/auth/api-token';
import { screenshot } from '../support/browser';
import {
  CONSOLE,
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
    admin = await createOperator(h, 'admin@example.com', 'admin');
    context = await h.newContext();
    page = await context.newPage();
    await signInToConsole(page, h, admin);
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
});
