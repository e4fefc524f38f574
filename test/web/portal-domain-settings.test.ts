import request from 'supertest';
import { givenDomain } from '../support/domains';
import { type Harness, startHarness } from '../support/harness';
import { csrfOf, TEST_ACTOR } from '../support/web';

const PORTAL = '/portal';
const PASSWORD = 'portal password 0001';
const NONE = { dnsManagement: false, emailForwarding: false, idProtection: false };
const ALL = { dnsManagement: true, emailForwarding: true, idProtection: true };

const REGISTRANT = {
  'registrant.firstname': 'Ada',
  'registrant.lastname': 'Lovelace',
  'registrant.email': 'ada@example.com',
  'registrant.address1': '1 Analytical Way',
  'registrant.city': 'London',
  'registrant.postcode': 'N1 1AA',
  'registrant.country': 'gb',
  'registrant.phonenumber': '+44.2071234567',
};

async function signedIn(h: Harness, email: string) {
  const { token } = await h.module.services.portalLogins.invite(TEST_ACTOR, email);
  await h.module.services.portalLogins.acceptInvitation(token, PASSWORD, PASSWORD);
  const agent = request.agent(h.server);
  const form = await agent.get(`${PORTAL}/sign-in`);
  const res = await agent
    .post(`${PORTAL}/sign-in`)
    .type('form')
    .send({ _csrf: csrfOf(form.text), email, password: PASSWORD });
  expect(res.status).toBe(303);
  return { agent, csrf: csrfOf((await agent.get(`${PORTAL}/`)).text) };
}

/**
 * docs/portal.md#pages: DNS records, email forwarding, ID protection and contacts changed from
 * the portal through the API's domain-management service and its rules (a priced add-on not
 * bought, an open order, a registrar without the capability), every form CSRF-checked and escaped.
 */
describe('portal domain settings', () => {
  let h: Harness;
  let agent: ReturnType<typeof request.agent>;
  let csrf: string;
  const post = (path: string, form: Record<string, string | string[]>, token = csrf) =>
    agent
      .post(`${PORTAL}${path}`)
      .type('form')
      .send({ _csrf: token, ...form });
  const api = (path: string) => h.http.get(path).set(h.headers());

  beforeAll(async () => {
    h = await startHarness({ before: (m) => [m.portal({ mountPath: PORTAL })] });
    await h.module.services.catalogue.setAddonPrices('default', {
      idprotection: 200,
      dnsmanagement: 100,
      emailforwarding: 50,
    });
    await givenDomain(h.module, 'bought.com', { addons: ALL, expiryDate: '2027-11-21' });
    await givenDomain(h.module, 'bare.com', { addons: NONE, expiryDate: '2027-11-21' });
    ({ agent, csrf } = await signedIn(h, h.reseller.email));
  });
  afterAll(() => h.close());

  it('saves DNS records from the form rows, leaves blank rows out, and the API reads them back', async () => {
    const page = await agent.get(`${PORTAL}/domains/bought.com/dns`);
    expect(page.status).toBe(200);
    expect(page.text).toContain('Save DNS records');
    const res = await post('/domains/bought.com/dns', {
      hostname: ['www', '@', ''],
      type: ['A', 'MX', 'A'],
      address: ['192.0.2.10', 'mx.example.net', ''],
      priority: ['', '10', ''],
    });
    expect([res.status, res.headers.location]).toEqual([303, `${PORTAL}/domains/bought.com/dns?notice=dns`]);
    const records = (await api('/domains/bought.com/dns')).body as Array<Record<string, string>>;
    expect(records.map((r) => [r.hostname, r.type, r.address])).toEqual([
      ['www', 'A', '192.0.2.10'],
      ['@', 'MX', 'mx.example.net'],
    ]);
    const shown = await agent.get(`${PORTAL}/domains/bought.com/dns?notice=dns`);
    expect(shown.text).toContain('The DNS records are saved.');
    expect(shown.text).toContain('value="192.0.2.10"');
    const audit = await h.module.services.audit.find({ actionPrefix: 'reseller.domain.dns', limit: 5 });
    expect(audit.map((e) => e.action).sort()).toEqual(['reseller.domain.dns', 'reseller.domain.dns.requested']);
  });

  it('shows an invalid record again with the reason, escaped, and saves nothing', async () => {
    const before = (await api('/domains/bought.com/dns')).body;
    const res = await post('/domains/bought.com/dns', {
      hostname: ['<script>x</script>'],
      type: ['A'],
      address: ['not-an-ip'],
      priority: [''],
    });
    expect(res.status).toBe(400);
    expect(res.text).toMatch(/id="settings-error">dnsrecords\[0\]: hostname &quot;&lt;script&gt;/);
    expect(res.text).not.toContain('<script>x</script>');
    expect(res.text).toContain('&lt;script&gt;x&lt;/script&gt;');
    expect((await api('/domains/bought.com/dns')).body).toEqual(before);
  });

  it('saves email forwards, and refuses a bad target naming it', async () => {
    const saved = await post('/domains/bought.com/email-forwarding', {
      prefix: ['info', ''],
      forwardto: ['me@example.net', ''],
    });
    expect(saved.status).toBe(303);
    expect((await api('/domains/bought.com/email')).body).toEqual([{ prefix: 'info', forwardto: 'me@example.net' }]);
    const bad = await post('/domains/bought.com/email-forwarding', { prefix: ['sales'], forwardto: ['nowhere'] });
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('id="settings-error"');
    expect((await api('/domains/bought.com/email')).body).toEqual([{ prefix: 'info', forwardto: 'me@example.net' }]);
  });

  it('saves contacts, and names what a registrant lacks', async () => {
    const saved = await post('/domains/bought.com/contacts', REGISTRANT);
    expect(saved.status).toBe(303);
    const contacts = (await api('/domains/bought.com/contact')).body;
    expect(contacts.Registrant).toMatchObject({ 'First Name': 'Ada', Country: 'GB' });
    const page = await agent.get(`${PORTAL}/domains/bought.com/contacts`);
    expect(page.text).toContain('value="Lovelace"');
    const lacking = await post('/domains/bought.com/contacts', { ...REGISTRANT, 'registrant.city': '' });
    expect(lacking.status).toBe(400);
    expect(lacking.text).toContain('the registrant contact needs city');
    expect((await api('/domains/bought.com/contact')).body.Registrant.City).toBe('London');
  });

  it('turns ID protection off on a domain ordered with it, and on again while the add-on is free', async () => {
    expect((await post('/domains/bought.com/id-protection', { enabled: 'false' })).status).toBe(303);
    expect((await h.module.services.domains.show('bought.com')).addons.idProtection).toBe(false);
    const page = await agent.get(`${PORTAL}/domains/bought.com?notice=id_protection`);
    expect(page.text).toMatch(/id="id-protection-state">off</);
    expect(page.text).toContain('ID protection is saved.');
    await h.module.services.catalogue.setAddonPrices('default', {
      idprotection: 0,
      dnsmanagement: 100,
      emailforwarding: 50,
    });
    expect((await post('/domains/bought.com/id-protection', { enabled: 'true' })).status).toBe(303);
    await h.module.services.catalogue.setAddonPrices('default', {
      idprotection: 200,
      dnsmanagement: 100,
      emailforwarding: 50,
    });
    expect((await h.module.services.domains.show('bought.com')).addons.idProtection).toBe(true);
    expect((await post('/domains/bought.com/id-protection', { enabled: 'maybe' })).status).toBe(400);
    const audit = await h.module.services.audit.find({ actionPrefix: 'reseller.domain.id_protection', limit: 10 });
    expect(audit.filter((e) => e.action === 'reseller.domain.id_protection').map((e) => e.after)).toEqual([
      { idProtection: true, pending: false },
      { idProtection: false, pending: false },
    ]);
  });

  it('refuses a priced add-on the domain was not ordered with, as the API does, naming the price and changing nothing', async () => {
    const apiWords = (addon: string, price: string) =>
      `bare.com was not ordered with ${addon}, a paid addon (${price} a year); it is bought with a register or transfer order; nothing was changed`;
    const id = await post('/domains/bare.com/id-protection', { enabled: 'true' });
    expect(id.status).toBe(400);
    expect(id.text).toContain(apiWords('idprotection', '2.00'));
    const dns = await post('/domains/bare.com/dns', {
      hostname: ['www'],
      type: ['A'],
      address: ['192.0.2.1'],
      priority: [''],
    });
    expect(dns.status).toBe(400);
    expect(dns.text).toContain(apiWords('dnsmanagement', '1.00'));
    const email = await post('/domains/bare.com/email-forwarding', { prefix: ['info'], forwardto: ['me@example.net'] });
    expect(email.status).toBe(400);
    expect(email.text).toContain(apiWords('emailforwarding', '0.50'));
    expect((await h.module.services.domains.show('bare.com')).addons).toEqual(NONE);
  });

  it('answers 409 while an order for the domain is open, as the API does', async () => {
    await givenDomain(h.module, 'ordering.com', { addons: ALL, expiryDate: '2027-11-21' });
    const pending = await h.module.services.orders.renew(
      {
        id: (await h.module.services.resellers.byEmail(h.reseller.email)).id,
        groupId: (await h.module.services.resellers.byEmail(h.reseller.email)).groupId,
      },
      { domain: 'ordering.com', period: 1, addons: {} },
    );
    expect(pending.status).toBe('completed');
    // An open order, as a registrar that has not answered leaves it.
    await h.module
      .knex('orders')
      .where({ id: pending.orderId })
      .update({ status: 'pending', open_domain: 'ordering.com' });
    for (const [path, form] of [
      ['/domains/ordering.com/dns', { hostname: ['www'], type: ['A'], address: ['192.0.2.1'], priority: [''] }],
      ['/domains/ordering.com/email-forwarding', { prefix: ['info'], forwardto: ['me@example.net'] }],
      ['/domains/ordering.com/contacts', REGISTRANT],
      ['/domains/ordering.com/id-protection', { enabled: 'false' }],
    ] as Array<[string, Record<string, string | string[]>]>) {
      const res = await post(path, form);
      expect([path, res.status]).toEqual([path, 409]);
      expect(res.text).toContain('An order for ordering.com is already in progress');
    }
    await h.module.knex('orders').where({ id: pending.orderId }).update({ status: 'completed', open_domain: null });
  });

  it("shows each API call's request and reply on the API log page, the EPP code redacted", async () => {
    const { eppcode } = (await api('/domains/bought.com/eppcode')).body;
    await h.http.post('/domains/bought.com/lock').set(h.headers()).type('form').send('lockstatus=<b>locked</b>');
    await h.module.flushApiLog();
    const page = await agent.get(`${PORTAL}/api-log`);
    expect(page.text).toContain('Request and reply');
    expect(page.text).toContain('{&quot;eppcode&quot;:&quot;[redacted]&quot;}');
    expect(page.text).toContain('{&quot;lockstatus&quot;:&quot;&lt;b&gt;locked&lt;/b&gt;&quot;}');
    expect(page.text).not.toContain(eppcode);
  });

  describe('audit of changes made at the registrar (ADR 17; review finding: the entry came after the registrar call)', () => {
    const registrarLock = async (name: string) =>
      (await h.http.get(`/domains/${name}/lock`).set(h.headers())).body as string;
    const entriesOf = async (name: string) =>
      (await h.module.services.audit.find({ subject: { kind: 'domain', id: name }, limit: 10 }))
        .map((e) => ({ action: e.action, actor: e.actor.kind, after: e.after }))
        .sort((a, b) => a.action.localeCompare(b.action));

    it('makes no change at the registrar that the audit log cannot record', async () => {
      await givenDomain(h.module, 'unaudited.com', { addons: ALL, expiryDate: '2027-11-21' });
      expect(await registrarLock('unaudited.com')).toBe('locked');
      // The audit log refuses every write, as a database failing at that moment would.
      await h.module.knex.schema.renameTable('audit_log', 'audit_log_away');
      try {
        const res = await post('/domains/unaudited.com/lock', { locked: 'false' });
        expect(res.status).toBe(500);
      } finally {
        await h.module.knex.schema.renameTable('audit_log_away', 'audit_log');
      }
      expect(await registrarLock('unaudited.com')).toBe('locked');
    });

    it('records the request before the registrar is asked, and its outcome with what the answer changed', async () => {
      await givenDomain(h.module, 'audited.com', { addons: ALL, expiryDate: '2027-11-21' });
      expect((await post('/domains/audited.com/lock', { locked: 'false' })).status).toBe(303);
      expect(await registrarLock('audited.com')).toBe('unlocked');
      expect((await h.module.services.domains.show('audited.com')).transferLock).toBe(false);
      expect(await entriesOf('audited.com')).toEqual([
        { action: 'reseller.domain.lock', actor: 'reseller', after: { transferLock: false, pending: false } },
        { action: 'reseller.domain.lock.requested', actor: 'reseller', after: { transferLock: false } },
      ]);
    });

    it('records a refusal by the registrar as the outcome of the request', async () => {
      // Known to us but not at the registry: the registry refuses every change.
      await givenDomain(h.module, 'refused.com', { addons: ALL, expiryDate: '2027-11-21', atRegistrar: false });
      const res = await post('/domains/refused.com/lock', { locked: 'false' });
      expect(res.status).toBeGreaterThanOrEqual(400);
      expect(await entriesOf('refused.com')).toEqual([
        {
          action: 'reseller.domain.lock.failed',
          actor: 'reseller',
          after: { transferLock: false, reason: expect.stringContaining('refused.com is not registered') },
        },
        { action: 'reseller.domain.lock.requested', actor: 'reseller', after: { transferLock: false } },
      ]);
    });
  });

  it('refuses every change without the CSRF token', async () => {
    const res = await post('/domains/bought.com/email-forwarding', { prefix: [''], forwardto: [''] }, '');
    expect(res.status).toBe(403);
    expect((await api('/domains/bought.com/email')).body).toEqual([{ prefix: 'info', forwardto: 'me@example.net' }]);
  });
});

describe('portal domain settings on a registrar without the capability', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      before: (m) => [m.portal({ mountPath: PORTAL })],
      settings: { plugins: { sandbox: { disabledCapabilities: ['dnsRecords', 'emailForwarding', 'contacts'] } } },
    });
    await givenDomain(h.module, 'plain.com', { addons: ALL, expiryDate: '2027-11-21' });
  });
  afterAll(() => h.close());

  it('says the registrar does not offer it instead of a form, and refuses a post with the same words', async () => {
    const { agent, csrf } = await signedIn(h, h.reseller.email);
    for (const [path, what] of [
      ['dns', 'DNS management'],
      ['email-forwarding', 'email forwarding'],
      ['contacts', 'contact management'],
    ]) {
      const page = await agent.get(`${PORTAL}/domains/plain.com/${path}`);
      expect([path, page.status]).toEqual([path, 400]);
      expect(page.text).toContain(`The registrar of this domain does not offer ${what}`);
      expect(page.text).not.toContain('<form method="post" action="/portal/domains/plain.com/');
    }
    const posted = await agent
      .post(`${PORTAL}/domains/plain.com/dns`)
      .type('form')
      .send({ _csrf: csrf, hostname: 'www', type: 'A', address: '192.0.2.1', priority: '' });
    expect(posted.status).toBe(400);
    expect(posted.text).toContain('The registrar of this domain does not offer DNS management');
  });
});
