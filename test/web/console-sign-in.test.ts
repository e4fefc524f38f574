import type { BrowserContext } from 'playwright-core';
import { screenshot } from '../support/browser';
import {
  CONSOLE,
  createOperator,
  signInToConsole,
  startWebHarness,
  type TestOperator,
  nextTotpCode,
  totpCode,
  type WebHarness,
} from '../support/web';

describe('console sign-in in a real browser', () => {
  let h: WebHarness;
  let admin: TestOperator;
  let context: BrowserContext;

  beforeAll(async () => {
    h = await startWebHarness();
    admin = await createOperator(h, 'admin@example.com', 'admin');
  });
  afterAll(() => h.close());
  beforeEach(async () => {
    context = await h.newContext();
  });
  afterEach(() => context.close());

  it('signs an admin in with password and TOTP code and shows the dashboard', async () => {
    const page = await context.newPage();
    await page.goto(`${CONSOLE}/`);
    expect(page.url()).toBe(`${h.baseUrl}${CONSOLE}/sign-in`);
    await screenshot(page, 'console-sign-in');
    await page.fill('#email', admin.email);
    await page.fill('#password', admin.password);
    await page.click('button[type=submit]');
    await page.waitForURL(`**${CONSOLE}/sign-in/code`);
    await page.fill('#code', nextTotpCode(h, admin.totpSecret!));
    await page.click('form[action$="/sign-in/code"] button[type=submit]');
    await page.waitForURL(`**${CONSOLE}/`);
    expect(await page.textContent('h1')).toBe('Dashboard');
    expect(await page.textContent('#figure-resellers')).toBe('1');
    await screenshot(page, 'console-dashboard');
    const audit = await h.module.services.audit.find({ actionPrefix: 'operator.sign_in', limit: 10 });
    expect(audit.map((e) => [e.action, e.actor.label])).toContainEqual(['operator.sign_in', admin.email]);
  });

  it('refuses a wrong password with one generic message and audits the failure', async () => {
    const page = await context.newPage();
    await page.goto(`${CONSOLE}/sign-in`);
    await page.fill('#email', admin.email);
    await page.fill('#password', 'not the password at all');
    const [response] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === 'POST'),
      page.click('button[type=submit]'),
    ]);
    expect(response.status()).toBe(401);
    expect(await page.textContent('[role=alert]')).toContain('do not match an operator who may sign in');
    const failures = await h.module.services.audit.find({ actionPrefix: 'operator.sign_in.failed', limit: 10 });
    expect(failures.length).toBeGreaterThan(0);
  });

  it('makes an admin without a second factor enrol one, then shows recovery codes once', async () => {
    const fresh = await createOperator(h, 'new-admin@example.com', 'admin', { withTotp: false });
    const page = await context.newPage();
    await signInToConsole(page, h, fresh);
    expect(page.url()).toContain(`${CONSOLE}/sign-in/enrol`);
    const secret = (await page.textContent('#totp-secret'))!.trim();
    await page.fill('#code', totpCode(secret, h.clock.now()));
    await page.click('form[action$="/sign-in/enrol"] button[type=submit]');
    await page.waitForSelector('#recovery-codes');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    await page.goto(`${CONSOLE}/`);
    expect(await page.textContent('h1')).toBe('Dashboard');
  });

  it('ends the session on sign-out: the old cookie opens nothing', async () => {
    const page = await context.newPage();
    await signInToConsole(page, h, admin);
    const cookie = (await context.cookies()).find((c) => c.name === 'console_session');
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: CONSOLE });
    await page.click('header form[action$="/sign-out"] button');
    await page.waitForURL((url) => url.pathname === `${CONSOLE}/sign-in` && url.search === '?notice=signed_out');
    const replay = await h.http.get(`${CONSOLE}/`).set('Cookie', `console_session=${cookie!.value}`);
    expect(replay.status).toBe(303);
    expect(replay.headers.location).toBe(`${CONSOLE}/sign-in`);
  });

  it('sends the CSRF token from htmx 4 requests through the header the layout declares', async () => {
    const page = await context.newPage();
    await signInToConsole(page, h, admin);
    await page.goto(`${CONSOLE}/sessions`);
    const before = (await h.module.webSessions.list('console')).length;
    const other = await h.module.webSessions.start({
      area: 'console',
      principalKind: 'operator',
      principalId: 'someone',
      stage: 'signed_in',
      clientIp: null,
      userAgent: null,
    });
    // A button outside any form: only the header inherited from <body> can carry the token.
    const answer = page.waitForResponse((r) => r.request().method() === 'POST');
    await page.evaluate(
      (path) => {
        const doc = (globalThis as unknown as { document: any }).document;
        const button = doc.createElement('button');
        button.id = 'hx-probe';
        button.setAttribute('hx-post', path);
        button.setAttribute('hx-swap', 'none');
        doc.querySelector('main').append(button);
        (globalThis as unknown as { htmx: { process(e: unknown): void } }).htmx.process(button);
      },
      `${CONSOLE}/sessions/${other.session.idHash.slice(0, 16)}/revoke`,
    );
    await page.click('#hx-probe');
    const reply = await answer;
    expect(reply.request().headers()['x-csrf-token']).toBeTruthy();
    expect(reply.status()).toBe(303);
    expect((await h.module.webSessions.list('console')).length).toBe(before);
  });
});
