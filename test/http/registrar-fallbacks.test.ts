import { CAPABILITY_NAMES } from '../../src/core/registrar/plugin';
import { ROUTES } from '../../src/http/routes';
import { givenDomain, platformRecord } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { call, form } from '../support/wire';

/** The sandbox with some capabilities switched off by configuration, as an operator would. */
const sandboxWithout = (...disabledCapabilities: string[]) =>
  startHarness({ settings: { plugins: { sandbox: { disabledCapabilities } } } });

describe('capability fallbacks, end to end with the sandbox', () => {
  describe('a registrar without domainInformation, transferSync and domainSync', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await sandboxWithout('domainInformation', 'transferSync', 'domainSync');
    });
    afterAll(async () => {
      await h.close();
    });

    it('builds information from the nameservers, the lock and the platform record', async () => {
      await givenDomain(h.module, 'assembled.com', {
        expiryDate: '2029-05-06',
        addons: { idProtection: true, emailForwarding: true },
      });
      await h.http
        .post('/domains/assembled.com/nameservers')
        .set(h.headers())
        .type('form')
        .send(form({ ns1: 'ns1.fresh.test', ns2: 'ns2.fresh.test' }));
      const res = await h.http.get('/domains/assembled.com/information').set(h.headers());
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({
        domain: 'assembled.com',
        nameservers: ['ns1.fresh.test', 'ns2.fresh.test'],
        transferLock: true,
        expiryDate: '2029-05-06T00:00:00Z',
        registrationStatus: 'Active',
        status: 'Active',
        idProtectionStatus: true,
        emailForwardingStatus: true,
        dnsManagementStatus: false,
      });
      expect(res.body).not.toHaveProperty('registrantEmailAddress');
    });

    it('answers transfer sync as completed with the expiry date the platform holds', async () => {
      await givenDomain(h.module, 'no-transfer-sync.com', { expiryDate: '2028-02-29', status: 'Pending Transfer' });
      const res = await h.http.post('/domains/no-transfer-sync.com/transfersync').set(h.headers());
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ completed: true, failed: false, reason: '', expirydate: '2028-02-29' });
      expect(await platformRecord(h.module, 'no-transfer-sync.com')).toMatchObject({
        status: 'Active',
        expiryDate: '2028-02-29',
      });
    });

    it('leaves the expiry date out of transfer sync when the platform does not know it', async () => {
      await givenDomain(h.module, 'no-expiry.com', { expiryDate: null });
      const res = await h.http.post('/domains/no-expiry.com/transfersync').set(h.headers());
      expect(res.body).toEqual({ completed: true, failed: false, reason: '' });
    });

    it("reports the platform's own record from sync, unchanged", async () => {
      await givenDomain(h.module, 'no-sync.com', { status: 'Grace', expiryDate: '2026-11-01' });
      const res = await h.http.post('/domains/no-sync.com/sync').set(h.headers());
      expect(res.body).toEqual({
        active: false,
        expired: true,
        transferredAway: false,
        cancelled: false,
        expirydate: '2026-11-01',
      });
      expect(await platformRecord(h.module, 'no-sync.com')).toMatchObject({
        status: 'Grace',
        expiryDate: '2026-11-01',
      });
    });
  });

  describe('a registrar without domainInformation and registrarLock', () => {
    let h: Harness;
    beforeAll(async () => {
      h = await sandboxWithout('domainInformation', 'registrarLock');
    });
    afterAll(async () => {
      await h.close();
    });

    it('builds information with the lock the platform last knew, or unlocked when it never knew', async () => {
      await givenDomain(h.module, 'never-known.com');
      expect((await h.http.get('/domains/never-known.com/information').set(h.headers())).body.transferLock).toBe(false);
      await givenDomain(h.module, 'known-lock.com', { transferLock: true });
      expect((await h.http.get('/domains/known-lock.com/information').set(h.headers())).body.transferLock).toBe(true);
    });
  });

  describe('a registrar with no optional capability at all', () => {
    let h: Harness;
    const ALL_OPTIONAL = [...CAPABILITY_NAMES];
    beforeAll(async () => {
      h = await sandboxWithout(...ALL_OPTIONAL);
    });
    afterAll(async () => {
      await h.close();
    });

    it('answers information with a 400 naming the capability, since nameservers are needed to build it', async () => {
      await givenDomain(h.module, 'bare.com');
      const res = await h.http.get('/domains/bare.com/information').set(h.headers());
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error:
          'The registrar of bare.com (sandbox) does not offer domain information (capability domainInformation, or nameservers to build it from)',
      });
    });

    it('still answers transfer sync and sync from the platform record', async () => {
      await givenDomain(h.module, 'bare-sync.com', { expiryDate: '2027-12-31' });
      expect((await h.http.post('/domains/bare-sync.com/transfersync').set(h.headers())).body).toEqual({
        completed: true,
        failed: false,
        reason: '',
        expirydate: '2027-12-31',
      });
      expect((await h.http.post('/domains/bare-sync.com/sync').set(h.headers())).body).toEqual({
        active: true,
        expired: false,
        transferredAway: false,
        cancelled: false,
        expirydate: '2027-12-31',
      });
    });

    const NO_FALLBACK: Array<
      [method: 'get' | 'post', path: string, capability: string, body: Record<string, unknown>]
    > = [
      ['get', '/domains/:domain/dns', 'dnsRecords', {}],
      [
        'post',
        '/domains/:domain/dns',
        'dnsRecords',
        { dnsrecords: [{ hostname: '@', type: 'A', address: '192.0.2.1' }] },
      ],
      ['get', '/domains/:domain/nameservers', 'nameservers', {}],
      ['post', '/domains/:domain/nameservers', 'nameservers', { ns1: 'ns1.example.net', ns2: 'ns2.example.net' }],
      [
        'post',
        '/domains/:domain/nameservers/register',
        'childHosts',
        { nameserver: 'ns1.bare-routes.com', ipaddress: '192.0.2.1' },
      ],
      [
        'post',
        '/domains/:domain/nameservers/modify',
        'childHosts',
        { nameserver: 'ns1.bare-routes.com', currentipaddress: '192.0.2.1', newipaddress: '192.0.2.2' },
      ],
      ['post', '/domains/:domain/nameservers/delete', 'childHosts', { nameserver: 'ns1.bare-routes.com' }],
      ['get', '/domains/:domain/lock', 'registrarLock', {}],
      ['post', '/domains/:domain/lock', 'registrarLock', { lockstatus: 'locked' }],
      ['post', '/domains/:domain/protectid', 'idProtection', { status: '1' }],
      ['post', '/domains/:domain/delete', 'delete', {}],
      ['get', '/domains/:domain/eppcode', 'eppCode', {}],
      ['get', '/domains/:domain/contact', 'contacts', {}],
      ['post', '/domains/:domain/contact', 'contacts', { contactdetails: { Admin: { 'First Name': 'Ada' } } }],
      ['get', '/domains/:domain/email', 'emailForwarding', {}],
      ['post', '/domains/:domain/email', 'emailForwarding', { prefix: ['info'], forwardto: ['me@example.net'] }],
      ['post', '/domains/:domain/release', 'release', { transfertag: 'OTHER' }],
    ];

    it('lists every {domain} route either here or among the fallbacks', () => {
      const withFallback = ['/domains/:domain/information', '/domains/:domain/transfersync', '/domains/:domain/sync'];
      const listed = NO_FALLBACK.map(([m, p]) => `${m} ${p}`);
      const routes = ROUTES.filter((r) => r.path.includes(':domain') && !withFallback.includes(r.path)).map(
        (r) => `${r.method} ${r.path}`,
      );
      expect(listed.sort()).toEqual(routes.sort());
    });

    it.each(NO_FALLBACK)('%s %s answers a 400 naming %s', async (method, path, capability, body) => {
      await givenDomain(h.module, 'bare-routes.com').catch(() => undefined);
      const res = await call(h, { method, path }, 'bare-routes.com', body);
      expect(res.status).toBe(400);
      expect(res.body.error).toMatch(
        new RegExp(`^The registrar of bare-routes.com \\(sandbox\\) does not offer .+ \\(capability ${capability}\\)$`),
      );
      expect((await platformRecord(h.module, 'bare-routes.com'))?.status).toBe('Active');
    });
  });
});

describe('registrar deadline over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { registrarTimeoutMs: 100, plugins: { sandbox: { latencyMs: 5000 } } } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 504 naming the registrar when it does not answer in time, and changes nothing', async () => {
    await givenDomain(h.module, 'deadline.com', { atRegistrar: false, transferLock: true });
    const res = await h.http
      .post('/domains/deadline.com/lock')
      .set(h.headers())
      .type('form')
      .send('lockstatus=unlocked');
    expect(res.status).toBe(504);
    expect(res.body).toEqual({ error: 'Registrar sandbox did not answer within 100 ms' });
    expect((await platformRecord(h.module, 'deadline.com'))?.transferLock).toBe(true);
  });
});
