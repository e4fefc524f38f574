import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import { TOKENS } from '../../src/core/tokens';
import { screenshot, scriptRan, XSS_PAYLOADS } from '../support/browser';
import {
  CONSOLE,
  openConsole,
  signInToConsole,
  startWebHarness,
  submit,
  type TestOperator,
  type WebHarness,
} from '../support/web';
import { placeRegister, REGISTRANT } from '../support/wire';

const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'plugins');

/** Orders, domains and what people typed, in a real browser, on the scripted registrar (pending orders on demand). */
describe('console orders, domains and hostile text', () => {
  let h: WebHarness;
  let admin: TestOperator;
  let context: BrowserContext;
  let page: Page;

  const register = (domain: string) => placeRegister(h, domain);

  beforeAll(async () => {
    h = await startWebHarness({
      pluginsDir: PLUGINS_DIR,
      registrar: 'scripted',
      settings: { registrarTimeoutMs: 100 },
    });
    ({ admin, context, page } = await openConsole(h, { watchScripts: true }));
  });
  afterAll(async () => {
    await context.close();
    await h.close();
  });

  it('settles a pending order with a refund through the settlement path, once', async () => {
    await register('lost-settle.com');
    // The request that placed it holds a lease a minute past the registrar deadline; then it is the operator's.
    h.clock.advance(120_000);
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    const before = await h.module.services.credit.balance(reseller.id);
    await page.goto(`${CONSOLE}/domains?open=1`);
    expect(await page.textContent('#domains')).toContain('lost-settle.com');
    await page.goto(`${CONSOLE}/orders?status=pending`);
    await screenshot(page, 'console-orders');
    await Promise.all([page.waitForEvent('load'), page.click('#orders tbody a[href*="/orders/"]')]);
    expect(await page.textContent('#order-status')).toBe('pending');
    await page.check('input[name=outcome][value=refund]');
    await page.fill('#note', 'registrar ticket 123: not registered');
    page.once('dialog', (dialog) => dialog.accept());
    await submit(page, '#settle-form button[type=submit]');
    expect(await page.textContent('#order-status')).toBe('failed');
    expect(await h.module.services.credit.balance(reseller.id)).toBe(before + 1000);
    await screenshot(page, 'console-order');
    // Settled once: the form is gone, and a replayed POST is refused without a second refund.
    expect(await page.$('#settle-form')).toBeNull();
    await page.goto(`${CONSOLE}/domains?open=1`);
    expect(await page.textContent('#domains')).not.toContain('lost-settle.com');
    await page.goBack();
    const orderId = page.url().split('/orders/')[1]!.split('?')[0]!;
    const replay = await page.evaluate(
      async ([url, csrf]) =>
        (
          await fetch(url!, {
            method: 'POST',
            headers: { 'content-type': 'application/x-www-form-urlencoded' },
            body: `_csrf=${csrf}&outcome=refund&note=again`,
          })
        ).status,
      [`${CONSOLE}/orders/${orderId}/settle`, await page.getAttribute('header form input[name=_csrf]', 'value')],
    );
    expect(replay).toBe(409);
    expect(await h.module.services.credit.balance(reseller.id)).toBe(before + 1000);
    const audit = await h.module.services.audit.find({ actionPrefix: 'order.settle', limit: 5 });
    expect(audit.map((e) => e.action)).toEqual(['order.settle.refund']);
  });

  it('finds the domains expiring within 30 days across resellers', async () => {
    expect((await register('soon-one.com')).body).toBe('success');
    expect((await register('soon-two.net')).body).toBe('success');
    // A year on, both expire within 30 days; the session's lifetime ran out meanwhile: sign in again.
    h.clock.advance(350 * 86_400_000);
    await signInToConsole(page, h, admin);
    await page.goto(`${CONSOLE}/domains?expiring=30`);
    const names = await page.$$eval('#domains tbody tr td:first-child', (cells) =>
      cells.map((c) => c.textContent?.trim()),
    );
    expect(names).toEqual(expect.arrayContaining(['soon-one.com', 'soon-two.net']));
    await page.goto(`${CONSOLE}/domains?expiring=5`);
    expect(await page.textContent('#domains')).toContain('No domain matches');
    await page.goto(`${CONSOLE}/domains`);
    await screenshot(page, 'console-domains');
  });

  it('renders hostile text in a contact field, an order note and API log entries as text, and runs none of it', async () => {
    const [script, attribute] = XSS_PAYLOADS;
    await h.module.services.resellers.setDefaultContact('default', {
      ...REGISTRANT,
      firstname: script,
      lastname: attribute,
    });
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    await h.module.container.get(TOKENS.apiLogRepository).insertMany([
      {
        resellerId: reseller.id,
        at: h.clock.now(),
        method: 'GET',
        route: `/domains/${attribute}`,
        domain: script,
        status: 400,
        durationMs: 3,
        error: `${script} ${attribute}`,
        requestId: 'req-xss',
        clientIp: '203.0.113.9',
      },
    ]);
    await register('lost-xss.com');
    h.clock.advance(120_000);
    const [pending] = (await h.module.services.orders.list({ status: 'pending' })).filter(
      (o) => o.domain === 'lost-xss.com',
    );
    await h.module.services.orders.settleByOperator(pending!.id, { outcome: 'refund', note: `${script}${attribute}` });

    for (const [path, where] of [
      ['/groups/default', '#contact-form'],
      ['/api-log', '#api-log'],
      [`/orders/${pending!.id}`, '#order-note'],
    ] as const) {
      await page.goto(`${CONSOLE}${path}`);
      const shown =
        where === '#contact-form' ? await page.inputValue('#contact-firstname') : await page.textContent(where);
      expect([path, shown]).toEqual([
        path,
        expect.stringContaining(where === '#contact-form' ? script : 'window.__xss=1'),
      ]);
      expect([path, await scriptRan(page)]).toEqual([path, false]);
      expect([path, await page.$$eval('main img, main script', (found) => found.length)]).toEqual([path, 0]);
    }
    await page.goto(`${CONSOLE}/api-log`);
    await screenshot(page, 'console-api-log');
  });
});
