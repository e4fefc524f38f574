import type { BrowserContext, Page } from 'playwright-core';
import { computeToken } from '../../src/core/auth/api-token';
import { screenshot } from '../support/browser';
import { givenDomain } from '../support/domains';
import { startWebHarness, submit, TEST_ACTOR, totpCode, type WebHarness } from '../support/web';

const PORTAL = '/portal';
const PASSWORD = 'portal password 0001';

/**
 * The reseller portal in a real browser (docs/portal.md), on the engine of TEST_DB: invited from
 * the console's service, the reseller sets its password, signs in, rotates its key (the old one is
 * refused at once), reads its lists and exports, checks a token and shows an EPP code.
 */
describe('the reseller portal in a real browser', () => {
  let h: WebHarness;
  let context: BrowserContext;
  let page: Page;

  beforeAll(async () => {
    h = await startWebHarness({ before: (m) => [m.portal({ mountPath: PORTAL })] });
    await givenDomain(h.module, 'soon.com', { expiryDate: '2026-12-01' });
    await givenDomain(h.module, 'later.net', { expiryDate: '2027-09-01' });
    const id = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
    await h.module.services.credit.adjust(id, 2_500, 'bank transfer 42');
    context = await h.newContext();
    page = await context.newPage();
    page.on('dialog', (dialog) => dialog.accept());
  });
  afterAll(async () => {
    await context.close();
    await h.close();
  });

  const api = (apiKey: string) =>
    h.http
      .get('/billing/credits')
      .set({ username: h.reseller.email, token: computeToken(h.reseller.email, apiKey, h.clock.now()) });

  it('lets an invited reseller set its password, sign in, rotate its key, and refuses the old key at once', async () => {
    const { token } = await h.module.services.portalLogins.invite(TEST_ACTOR, h.reseller.email);
    await page.goto(`${PORTAL}/invitation?token=${token}`);
    expect(await page.textContent('h1')).toBe('Set your password');
    await page.fill('#password', PASSWORD);
    await page.fill('#confirmation', PASSWORD);
    await submit(page, 'form[action$="/invitation"] button[type=submit]');
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/sign-in?notice=password_set`);
    await page.goto(`${PORTAL}/invitation?token=${token}`);
    expect(await page.textContent('[role=alert]')).toContain('expired or was used already');

    await page.goto(`${PORTAL}/sign-in`);
    await screenshot(page, 'portal-sign-in');
    await page.fill('#email', h.reseller.email);
    await page.fill('#password', PASSWORD);
    await submit(page, 'form[action$="/sign-in"] button[type=submit]');
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/`);
    expect(await page.textContent('#balance')).toBe('125.00');
    expect(await page.textContent('#expiring')).toContain('soon.com');
    expect(await page.textContent('#expiring')).not.toContain('later.net');
    await screenshot(page, 'portal-dashboard');

    const oldKey = h.reseller.apiKey;
    expect((await api(oldKey)).status).toBe(200);
    await page.goto(`${PORTAL}/api`);
    expect(await page.textContent('#username')).toBe(h.reseller.email);
    expect(await page.textContent('#server-hour')).toBe('26-11-21 10');
    await screenshot(page, 'portal-api');
    await submit(page, '#rotate-key');
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/api/new-key`);
    const newKey = (await page.textContent('#api-key'))!.trim();
    expect(newKey).toMatch(/^[\w-]{32}$/);
    // A reload neither rotates the key again nor shows it again.
    await page.reload();
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/api?notice=key_shown`);
    expect(await page.content()).not.toContain(newKey);
    const refused = await api(oldKey);
    expect(refused.status).toBe(401);
    expect(refused.body).toEqual({ error: 'Invalid API Token provided' });
    expect((await api(newKey)).body).toBe('125.00');
    h.reseller.apiKey = newKey;
    await page.goto(`${PORTAL}/api`);
    expect(await page.textContent('h1')).toBe('API');
    expect(await page.content()).not.toContain(newKey);

    const audit = await h.module.services.audit.find({ actorKind: 'reseller', limit: 20 });
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['reseller.portal.sign_in', 'reseller.key.rotate', 'reseller.portal.password_set']),
    );
    expect(JSON.stringify(audit)).not.toContain(newKey);
  });

  it('checks a pasted token: valid now, another hour, a rotated key', async () => {
    await page.goto(`${PORTAL}/api`);
    const check = async (token: string) => {
      await page.fill('#token', token);
      await submit(page, 'form[action$="/api/check-token"] button[type=submit]');
      return (await page.textContent('#token-verdict'))!;
    };
    expect(await check(computeToken(h.reseller.email, h.reseller.apiKey, h.clock.now()))).toContain('Valid');
    const later = new Date(h.clock.now().getTime() + 2 * 3_600_000);
    expect(await check(computeToken(h.reseller.email, h.reseller.apiKey, later))).toContain('2 hour(s) ahead');
    const verdict = await check(computeToken(h.reseller.email, 'some-old-key-000000000000000000', h.clock.now()));
    expect(verdict).toContain('not made with your current API key');
    expect(await page.content()).not.toContain(h.reseller.apiKey);
    await screenshot(page, 'portal-token-checker');
  });

  it('lists, filters and exports the domains, orders and statement', async () => {
    await page.goto(`${PORTAL}/domains?search=soon`);
    expect(await page.textContent('#domains')).toContain('soon.com');
    expect(await page.textContent('#domains')).not.toContain('later.net');
    await page.goto(`${PORTAL}/domains?expiring=400&sort=expiry`);
    const names = await page.$$eval('#domains tbody tr td:first-child', (cells) => cells.map((c) => c.textContent));
    expect(names).toEqual(['soon.com', 'later.net']);
    await screenshot(page, 'portal-domains');

    await page.goto(`${PORTAL}/statement`);
    expect(await page.textContent('#statement')).toContain('bank transfer 42');
    expect(await page.textContent('#closing')).toBe('125.00');
    await screenshot(page, 'portal-statement');
    const [download] = await Promise.all([page.waitForEvent('download'), page.click('#statement-csv')]);
    const csv = Buffer.concat(await (await download.createReadStream()).toArray()).toString('utf8');
    const rows = csv
      .trim()
      .split('\r\n')
      .map((line) => line.split(','));
    expect(rows[0]).toEqual(['date', 'kind', 'amount', 'balance', 'order', 'description']);
    expect(rows.at(-1)).toEqual([expect.any(String), 'top_up', '25.00', '125.00', '', 'bank transfer 42']);

    await page.goto(`${PORTAL}/pricing`);
    expect(await page.textContent('#pricing')).toContain('.com');
    expect(await page.textContent('#premium')).toContain('not sold');
    await page.goto(`${PORTAL}/orders`);
    expect(await page.textContent('h1')).toBe('Orders');
    const missing = await page.goto(`${PORTAL}/no-such-page`);
    expect(missing?.status()).toBe(404);
    expect(await page.textContent('h1')).toBe('Not found');
  });

  it('shows the EPP code only after the password is typed again, and audits it', async () => {
    await page.goto(`${PORTAL}/domains/soon.com`);
    expect(await page.textContent('#domain-status')).toBe('Active');
    await page.fill('#ns1', 'ns1.new-host.net');
    await page.fill('#ns2', 'ns2.new-host.net');
    await submit(page, 'form[action$="/nameservers"] button[type=submit]');
    expect(await page.inputValue('#ns1')).toBe('ns1.new-host.net');
    const nameservers = await h.http.get('/domains/soon.com/nameservers').set(h.headers());
    expect(nameservers.body).toMatchObject({ ns1: 'ns1.new-host.net', ns2: 'ns2.new-host.net' });
    expect(await page.$('#epp-code')).toBeNull();
    await page.fill('#epp-password', 'not my password');
    await submit(page, 'form[action$="/eppcode"] button[type=submit]');
    expect(await page.textContent('[role=alert]')).toContain('not right');
    expect(await page.$('#epp-code')).toBeNull();
    await page.fill('#epp-password', PASSWORD);
    await submit(page, 'form[action$="/eppcode"] button[type=submit]');
    expect((await page.textContent('#epp-code'))!.length).toBeGreaterThan(3);
    const audit = await h.module.services.audit.find({ actionPrefix: 'reseller.domain.eppcode', limit: 5 });
    expect(audit.map((e) => e.action).sort()).toEqual(['reseller.domain.eppcode', 'reseller.domain.eppcode.requested']);
  });

  it('edits DNS records, email forwarding and contacts from the domain page, and shows a refusal beside the form', async () => {
    await page.goto(`${PORTAL}/domains/soon.com`);
    await page.click('#domain-settings a[href$="/dns"]');
    expect(await page.textContent('h1')).toBe('DNS records');
    await page.fill('[aria-label="Host name 1"]', 'www');
    await page.fill('[aria-label="Address 1"]', '192.0.2.10');
    await submit(page, '#dns-form button[type=submit]');
    expect(await page.textContent('[role=status]')).toBe('The DNS records are saved.');
    expect(await page.inputValue('[aria-label="Address 1"]')).toBe('192.0.2.10');
    await page.fill('[aria-label="Address 2"]', 'not an address');
    await page.fill('[aria-label="Host name 2"]', 'mail');
    await submit(page, '#dns-form button[type=submit]');
    expect(await page.textContent('#settings-error')).toContain('dnsrecords[1]');
    expect(await page.inputValue('[aria-label="Address 2"]')).toBe('not an address');
    await screenshot(page, 'portal-domain-dns');
    const dns = await h.http.get('/domains/soon.com/dns').set(h.headers());
    expect(dns.body.map((r: { address: string }) => r.address)).toEqual(['192.0.2.10']);

    await page.goto(`${PORTAL}/domains/soon.com/email-forwarding`);
    await page.fill('[aria-label="Prefix 1"]', 'info');
    await page.fill('[aria-label="Forward to 1"]', 'owner@example.net');
    await submit(page, '#email-form button[type=submit]');
    expect(await page.textContent('[role=status]')).toBe('The email forwards are saved.');

    await page.goto(`${PORTAL}/domains/soon.com/contacts`);
    for (const [f, v] of Object.entries({
      firstname: 'Ada',
      lastname: 'Lovelace',
      email: 'ada@example.com',
      address1: '1 Analytical Way',
      city: 'London',
      postcode: 'N1 1AA',
      country: 'GB',
      phonenumber: '+44.2071234567',
    }))
      await page.fill(`#registrant-${f}`, v);
    await submit(page, '#contacts-form button[type=submit]');
    expect(await page.textContent('[role=status]')).toBe('The contacts are saved.');
    expect(await page.inputValue('#registrant-city')).toBe('London');
    const audit = await h.module.services.audit.find({ actionPrefix: 'reseller.domain.', limit: 10 });
    expect(audit.map((e) => e.action)).toEqual(
      expect.arrayContaining(['reseller.domain.dns', 'reseller.domain.email_forwarding', 'reseller.domain.contacts']),
    );
  });

  it('signs out: the old cookie opens nothing, and the portal cookie never calls the API', async () => {
    const cookie = (await context.cookies()).find((c) => c.name === 'portal_session')!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax', path: PORTAL });
    const asApi = await h.http.get('/billing/credits').set('Cookie', `portal_session=${cookie.value}`);
    expect(asApi.status).toBe(401);
    await submit(page, 'header form[action$="/sign-out"] button[type=submit]');
    const reused = await h.http.get(`${PORTAL}/`).set('Cookie', `portal_session=${cookie.value}`);
    expect(reused.status).toBe(303);
    expect(reused.headers.location).toBe(`${PORTAL}/sign-in`);
  });

  it('turns on a second factor on the account page and asks for its code at the next sign-in', async () => {
    const signIn = async () => {
      await page.goto(`${PORTAL}/sign-in`);
      await page.fill('#email', h.reseller.email);
      await page.fill('#password', PASSWORD);
      await submit(page, 'form[action$="/sign-in"] button[type=submit]');
    };
    await signIn();
    await page.goto(`${PORTAL}/account`);
    await submit(page, '#start-second-factor');
    const secret = (await page.textContent('#totp-secret'))!.trim();
    await page.fill('#code', totpCode(secret, h.clock.now()));
    await submit(page, 'form[action$="/account/second-factor"] button[type=submit]');
    expect(await page.locator('#recovery-codes li').count()).toBe(10);
    const recovery = (await page.textContent('#recovery-codes li'))!.trim();
    await submit(page, 'header form[action$="/sign-out"] button[type=submit]');

    await signIn();
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/sign-in/code`);
    // Before the code, no page of the account opens.
    await page.goto(`${PORTAL}/statement`);
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/sign-in/code`);
    await page.fill('#code', recovery);
    await submit(page, 'form[action$="/sign-in/code"] button[type=submit]');
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/`);
    await page.goto(`${PORTAL}/account`);
    expect(await page.textContent('#second-factor-state')).toContain('9 recovery codes left');
    await page.fill('#remove-password', PASSWORD);
    await submit(page, 'form[action$="/second-factor/remove"] button[type=submit]');
    expect(await page.textContent('#second-factor-state')).toContain('Off');
    await submit(page, 'header form[action$="/sign-out"] button[type=submit]');
  });

  it('refuses a suspended reseller at sign-in and ends its open session at the next request', async () => {
    await page.goto(`${PORTAL}/sign-in`);
    await page.fill('#email', h.reseller.email);
    await page.fill('#password', PASSWORD);
    await submit(page, 'form[action$="/sign-in"] button[type=submit]');
    expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/`);
    await h.module.services.resellers.setStatus(h.reseller.email, 'suspended');
    try {
      await page.goto(`${PORTAL}/statement`);
      expect(page.url()).toBe(`${h.baseUrl}${PORTAL}/sign-in`);
      await page.fill('#email', h.reseller.email);
      await page.fill('#password', PASSWORD);
      await submit(page, 'form[action$="/sign-in"] button[type=submit]');
      expect(await page.textContent('[role=alert]')).toContain('suspended');
    } finally {
      await h.module.services.resellers.setStatus(h.reseller.email, 'active');
    }
  });
});
