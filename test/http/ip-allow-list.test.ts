import request from 'supertest';
import { createServerApp } from '../../src/server';
import { cli } from '../support/cli';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';

describe('IP allow-list per reseller', () => {
  let h: Harness;
  const env = () => ({ DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent' });
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });
  afterEach(async () => {
    for (const cidr of (await h.module.services.resellers.allowedNetworks(h.reseller.email)).allowedNetworks) {
      await h.module.services.resellers.disallowNetwork(h.reseller.email, cidr);
    }
  });

  it('is managed with reseller allow-ip, allowed-ips and disallow-ip, ranges kept in canonical form', async () => {
    const added = await cli(env(), 'reseller', 'allow-ip', h.reseller.email, '10.1.2.3/8');
    expect(added.code).toBe(0);
    expect(added.json()).toEqual({ email: h.reseller.email, added: '10.0.0.0/8', allowedNetworks: ['10.0.0.0/8'] });
    await cli(env(), 'reseller', 'allow-ip', h.reseller.email, '2001:DB8:0:0::1');
    expect((await cli(env(), 'reseller', 'allowed-ips', h.reseller.email)).json()).toEqual({
      email: h.reseller.email,
      allowedNetworks: ['10.0.0.0/8', '2001:db8::1/128'],
    });
    const removed = await cli(env(), 'reseller', 'disallow-ip', h.reseller.email, '10.0.0.0/8');
    expect(removed.json()).toEqual({
      email: h.reseller.email,
      removed: '10.0.0.0/8',
      allowedNetworks: ['2001:db8::1/128'],
    });
  });

  it('refuses a range that is not one, and removing one that is not on the list', async () => {
    const bad = await cli(env(), 'reseller', 'allow-ip', h.reseller.email, '10.0.0.0/33');
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/prefix length in "10.0.0.0\/33" must be a number from 0 to 32/);
    expect((await cli(env(), 'reseller', 'allow-ip', h.reseller.email, 'example.com')).stderr).toMatch(
      /is not an IP address or CIDR range/,
    );
    expect((await cli(env(), 'reseller', 'disallow-ip', h.reseller.email, '192.0.2.0/24')).stderr).toMatch(
      /192.0.2.0\/24 is not on the allow-list/,
    );
  });

  it('answers 403 naming the address, before any work, when the caller is outside every range; no list allows everyone', async () => {
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(200);
    await h.module.services.resellers.allowNetwork(h.reseller.email, '10.0.0.0/8');
    const refused = await h.http.get('/billing/credits').set(h.headers());
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatch(/^Requests from (::ffff:)?127\.0\.0\.1 are not allowed for this reseller/);
    await h.module.services.resellers.allowNetwork(h.reseller.email, '127.0.0.0/8');
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(200);
  });

  it('is written to the API log when it refuses a call', async () => {
    await h.module.services.resellers.allowNetwork(h.reseller.email, '192.0.2.0/24');
    await h.http.get('/tlds').set(h.headers());
    await h.module.flushApiLog();
    const reseller = await h.module.services.resellers.byEmail(h.reseller.email);
    const [latest] = await h.module.services.apiLog.find(reseller.id, { limit: 1 });
    expect(latest).toMatchObject({
      route: '/tlds',
      status: 403,
      error: expect.stringMatching(/are not allowed for this reseller/),
    });
  });

  describe('behind a load balancer (TRUST_PROXY)', () => {
    const through = (trustProxy: boolean) =>
      request(createServerApp(h.module, { ...h.module.settings, trustProxy, trustProxyHops: 1 }).callback());

    it('takes the client address the proxy appended, never the one the client wrote itself', async () => {
      await h.module.services.resellers.allowNetwork(h.reseller.email, '198.51.100.0/24');
      expect(
        (
          await through(true)
            .get('/billing/credits')
            .set({ ...h.headers(), 'x-forwarded-for': '198.51.100.7' })
        ).status,
      ).toBe(200);
      // The client sent "X-Forwarded-For: 198.51.100.7" itself; the load balancer appended the real address.
      const forged = await through(true)
        .get('/billing/credits')
        .set({ ...h.headers(), 'x-forwarded-for': '198.51.100.7, 203.0.113.9' });
      expect(forged.status).toBe(403);
      expect(forged.body.error).toMatch(/^Requests from 203\.0\.113\.9 /);
    });

    it('ignores X-Forwarded-For without TRUST_PROXY', async () => {
      await h.module.services.resellers.allowNetwork(h.reseller.email, '198.51.100.0/24');
      expect(
        (
          await through(false)
            .get('/billing/credits')
            .set({ ...h.headers(), 'x-forwarded-for': '198.51.100.7' })
        ).status,
      ).toBe(403);
    });
  });
});
