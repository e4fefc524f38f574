import request from 'supertest';
import { MODULE_TOKENS } from '../../src/container';
import { TOKENS } from '../../src/core/tokens';
import { givenDomain } from '../support/domains';
import { type Harness, startHarness } from '../support/harness';
import { csrfOf, TEST_ACTOR } from '../support/web';

const PORTAL = '/portal';
const PASSWORD = 'portal password 0001';

/**
 * docs/portal.md#what-the-portal-is-not: signed in as reseller B, every identifier of reseller A
 * (its domain, order, ledger entry, log entry, a cursor of its lists) in the path, the query and
 * the body gets the answer something that does not exist gets, and nothing of A changes.
 */
describe('portal isolation between resellers', () => {
  let h: Harness;
  let b: ReturnType<typeof request.agent>;
  let csrf: string;
  let a: { id: string; orderId: string; entryId: string; requestId: string; cursor: string };

  const signIn = async (email: string) => {
    const agent = request.agent(h.server);
    const form = await agent.get(`${PORTAL}/sign-in`);
    const res = await agent
      .post(`${PORTAL}/sign-in`)
      .type('form')
      .send({ _csrf: csrfOf(form.text), email, password: PASSWORD });
    expect(res.status).toBe(303);
    return agent;
  };
  /** A's state that no request of B may change. */
  const stateOfA = async () => ({
    domain: await h.module.services.domains.show('alpha-a.com'),
    // What lives at the registrar: the portal's DNS, email and contact pages change it there.
    dns: await management().dnsRecords(a.id, 'alpha-a.com'),
    email: await management().emailForwards(a.id, 'alpha-a.com'),
    contacts: await management().contacts(a.id, 'alpha-a.com'),
    balance: await h.module.services.credit.balance(a.id),
    networks: (await h.module.services.resellers.allowedNetworks(h.reseller.email)).allowedNetworks,
  });

  const management = () => h.module.container.get(TOKENS.domainManagementService);

  beforeAll(async () => {
    h = await startHarness({ before: (m) => [m.portal({ mountPath: PORTAL })] });
    const created = await h.module.services.resellers.create('b@example.com', 'default', 5_000);
    for (const email of [h.reseller.email, created.reseller.email]) {
      const { token } = await h.module.services.portalLogins.invite(TEST_ACTOR, email);
      await h.module.services.portalLogins.acceptInvitation(token, PASSWORD, PASSWORD);
    }
    await givenDomain(h.module, 'alpha-a.com', { expiryDate: '2026-12-01' });
    await givenDomain(h.module, 'beta-a.com', { expiryDate: '2026-12-02' });
    await givenDomain(h.module, 'own-b.com', { owner: 'b@example.com', expiryDate: '2026-12-03' });
    // A calls the API once (an API log entry) and has an order and ledger entries.
    const id = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
    const call = await h.http.get('/domains/alpha-a.com/lock').set(h.headers());
    const ordered = await h.http
      .post('/order/domains/renew')
      .set(h.headers())
      .type('form')
      .send({ domain: 'alpha-a.com', regperiod: '1' });
    expect(ordered.status).toBe(200);
    await h.module.container.get(MODULE_TOKENS.apiLogBuffer).flush();
    expect(await h.module.services.apiLog.find(id)).not.toEqual([]);
    const lists = h.module.services.accountLists;
    const orders = await lists.orders(id);
    const statement = await lists.statement(id, { limit: 1 });
    const domains = await lists.domains(id, { limit: 1 });
    a = {
      id,
      orderId: orders.items[0]!.id,
      entryId: statement.items[0]!.id,
      requestId: String(call.headers['x-request-id']),
      cursor: domains.next!,
    };
    b = await signIn('b@example.com');
    csrf = csrfOf((await b.get(`${PORTAL}/api`)).text);
  });
  afterAll(() => h.close());

  it("answers A's domain in the path exactly as a domain nobody holds, on every domain page, and changes nothing", async () => {
    const before = await stateOfA();
    const same = (text: string) => text.replace(/alpha-a\.com|nobody-here\.com/g, 'X').replace(/value="[^"]+"/g, '');
    for (const [method, suffix, body] of [
      ['get', '', {}],
      ['post', '/nameservers', { ns1: 'ns1.evil.net', ns2: 'ns2.evil.net' }],
      ['post', '/lock', { locked: 'false' }],
      ['post', '/eppcode', { password: PASSWORD }],
      ['get', '/dns', {}],
      ['get', '/email-forwarding', {}],
      ['get', '/contacts', {}],
      ['post', '/dns', { hostname: 'www', type: 'A', address: '192.0.2.66', priority: '' }],
      ['post', '/email-forwarding', { prefix: 'all', forwardto: 'thief@evil.example' }],
      ['post', '/contacts', { 'registrant.firstname': 'Eve', 'registrant.email': 'eve@evil.example' }],
      ['post', '/id-protection', { enabled: 'false' }],
    ] as const) {
      const send = (name: string) =>
        method === 'get'
          ? b.get(`${PORTAL}/domains/${name}${suffix}?domain=alpha-a.com&resellerId=${a.id}`)
          : b
              .post(`${PORTAL}/domains/${name}${suffix}`)
              .type('form')
              .send({ _csrf: csrf, domain: 'alpha-a.com', resellerId: a.id, ...body });
      const theirs = await send('alpha-a.com');
      const nobodys = await send('nobody-here.com');
      expect([theirs.status, same(theirs.text)]).toEqual([nobodys.status, same(nobodys.text)]);
      expect(theirs.status).toBe(409);
      expect(theirs.text).not.toMatch(/epp-code|ns1\.sandbox|Save DNS|Save email|Save contacts/);
    }
    // B's own domain named in the path, A's in the body: the path decides, and it is B's.
    const own = await b
      .post(`${PORTAL}/domains/own-b.com/lock`)
      .type('form')
      .send({ _csrf: csrf, domain: 'alpha-a.com', locked: 'true' });
    expect(own.status).toBe(303);
    for (const [suffix, body] of [
      ['/dns', { hostname: 'www', type: 'A', address: '192.0.2.77', priority: '' }],
      ['/email-forwarding', { prefix: 'info', forwardto: 'b@example.com' }],
      ['/id-protection', { enabled: 'false' }],
    ] as const) {
      const res = await b
        .post(`${PORTAL}/domains/own-b.com${suffix}`)
        .type('form')
        .send({ _csrf: csrf, domain: 'alpha-a.com', resellerId: a.id, ...body });
      expect([suffix, res.status]).toEqual([suffix, 303]);
    }
    expect(await stateOfA()).toEqual(before);
  });

  it("never lists A's domains, orders, statement entries or API calls, whatever A identifier is in the query", async () => {
    const pages = [
      `/domains?search=alpha-a`,
      `/domains?cursor=${a.cursor}`,
      `/domains?search=a&reseller=${a.id}&resellerId=${a.id}`,
      `/orders?domain=alpha-a.com`,
      `/orders?domain=alpha-a.com&format=csv`,
      `/orders?id=${a.orderId}&format=csv`,
      `/statement?entry=${a.entryId}&resellerId=${a.id}`,
      `/statement?format=csv&resellerId=${a.id}`,
      `/domains?format=csv&resellerId=${a.id}`,
      `/api-log?domain=alpha-a.com&hours=100000`,
      `/api-log?requestId=${a.requestId}`,
      `/`,
      `/api?resellerId=${a.id}`,
    ];
    for (const path of pages) {
      const res = await b.get(`${PORTAL}${path}`);
      expect([path, res.status]).toEqual([path, 200]);
      // What B typed comes back in its own filter fields and links; the rows are what must hold nothing of A.
      const shown = res.text.replace(/(value|href)="[^"]*"/g, '');
      for (const secret of ['alpha-a.com', 'beta-a.com', a.orderId, a.entryId, a.requestId, h.reseller.email])
        expect([path, shown.includes(secret)]).toEqual([path, false]);
    }
    const own = await b.get(`${PORTAL}/domains`);
    expect(own.text).toContain('own-b.com');
  });

  it("cannot take A's allow-list or key: the API page changes only B, whatever A identifiers a form carries", async () => {
    const before = await stateOfA();
    const added = await b
      .post(`${PORTAL}/api/allow-ip`)
      .type('form')
      .send({ _csrf: csrf, cidr: '192.0.2.0/24', email: h.reseller.email, resellerId: a.id });
    expect(added.status).toBe(303);
    expect((await h.module.services.resellers.allowedNetworks('b@example.com')).allowedNetworks).toEqual([
      '192.0.2.0/24',
    ]);
    const rotated = await b
      .post(`${PORTAL}/api/rotate-key`)
      .type('form')
      .send({ _csrf: csrf, email: h.reseller.email, resellerId: a.id });
    expect([rotated.status, rotated.headers.location]).toEqual([303, `${PORTAL}/api/new-key`]);
    // A's key still works; A's allow-list is untouched.
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(200);
    expect(await stateOfA()).toEqual(before);
    const threshold = await b
      .post(`${PORTAL}/low-credit`)
      .type('form')
      .send({ _csrf: csrf, threshold: '7.00', resellerId: a.id });
    expect(threshold.status).toBe(303);
    expect((await h.module.services.resellers.lowCredit(a.id)).threshold).toBeNull();
  });

  it('refuses every change without the CSRF token, and changes nothing', async () => {
    const before = await stateOfA();
    const res = await b.post(`${PORTAL}/api/allow-ip`).type('form').send({ cidr: '198.51.100.0/24' });
    expect(res.status).toBe(403);
    expect((await h.module.services.resellers.allowedNetworks('b@example.com')).allowedNetworks).toEqual([
      '192.0.2.0/24',
    ]);
    expect(await stateOfA()).toEqual(before);
  });
});
