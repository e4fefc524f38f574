import path from 'node:path';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { startStubHttpServer, type StubAnswer, type StubHttpServer } from '../support/stub-http-server';
import { registerForm } from '../support/wire';

/**
 * A registrar whose API misbehaves, behind a plugin that is a thin HTTP client of it
 * (test/fixtures/upstream-plugins/upstream): it hangs, answers garbage, redirects, drops the
 * connection. Orders must lose nothing and charge nothing twice; every client hears a clear answer.
 */
const PLUGINS_DIR = path.join(__dirname, '..', 'fixtures', 'upstream-plugins');
const DEADLINE_MS = 300;
const RECONCILE_AFTER_MS = 1000;

const FAULTS: Array<[string, StubAnswer]> = [
  ['hangs', { hang: true }],
  [
    'answers an HTML error page with 200',
    { status: 200, text: '<html><body>Service temporarily unavailable</body></html>' },
  ],
  ['answers JSON of the wrong shape', { json: { ok: 'yes', expiryDate: 20271121, extra: { nested: [1, 2] } } }],
  ['redirects to another host', { status: 302, text: '', headers: { location: 'http://127.0.0.1:9/elsewhere' } }],
  ['drops the connection', { drop: true }],
  ['answers 503', { status: 503, json: { error: 'maintenance' } }],
];

describe('a registrar that hangs, answers garbage or redirects', () => {
  let stub: StubHttpServer;
  let elsewhere: StubHttpServer;
  let h: Harness;

  beforeAll(async () => {
    stub = await startStubHttpServer();
    elsewhere = await startStubHttpServer();
    FAULTS[3]![1] = { status: 302, text: '', headers: { location: `${elsewhere.url}/register` } };
    h = await startHarness({
      pluginsDir: PLUGINS_DIR,
      registrar: 'upstream',
      settings: {
        registrarTimeoutMs: DEADLINE_MS,
        reconcileAfterMs: RECONCILE_AFTER_MS,
        plugins: { upstream: { url: stub.url } },
      },
    });
  });
  afterAll(async () => {
    await h.close();
    await stub.close();
    await elsewhere.close();
  });

  const balance = async () => (await h.http.get('/billing/credits').set(h.headers())).body as string;
  const orderOf = async (domain: string) => (await h.module.services.orders.list({ domain }))[0];
  const register = (domain: string, key: string) =>
    h.http
      .post('/order/domains/register')
      .set({ ...h.headers(), 'Idempotency-Key': key })
      .type('form')
      .send(registerForm(domain));
  const reconcileLater = async () => {
    h.clock.advance(DEADLINE_MS + RECONCILE_AFTER_MS + 1);
    return h.module.reconcile();
  };

  describe.each(FAULTS.map((f, i) => [f[0], i] as const))('when it %s during a registration', (_label, index) => {
    it.each([
      ['did not register the name', false],
      ['had registered the name after all', true],
    ])(
      'answers "success" (started), keeps the price reserved, and reconciliation settles it once when it %s',
      async (_what, registered) => {
        const domain = `fault-${index}-${registered ? 'kept' : 'gone'}.com`;
        const key = `key-${domain}`;
        // The registry answers the premium question; only the registration itself meets the fault.
        stub.on('POST /check', { json: [{ domain, status: 'available' }] });
        stub.on('POST /register', FAULTS[index]![1]);
        const before = await balance();

        const res = await register(domain, key);
        expect(res.status).toBe(200);
        expect(res.body).toBe('success');
        expect(await orderOf(domain)).toMatchObject({ status: 'pending', price: 10_00 });
        // A retry while the outcome is unknown replays the first answer: nothing placed, nothing charged.
        const retry = await register(domain, key);
        expect(retry.status).toBe(200);
        expect(await h.module.services.orders.list({ domain })).toHaveLength(1);
        // Without the key, the name has an order in progress.
        const again = await register(domain, `other-${key}`);
        expect(again.status).toBe(409);
        expect(again.body).toEqual({ error: `An order for ${domain} is already in progress` });

        // The registry, working again, knows whether the name is ours.
        stub.on(
          `GET /domains/${domain}`,
          registered
            ? { json: { ok: true, active: true, expired: false, transferredAway: false, expiryDate: '2027-11-21' } }
            : { json: { ok: false, reason: 'refused', message: `${domain} is not in this account` } },
        );
        await reconcileLater();
        await reconcileLater();

        expect(await orderOf(domain)).toMatchObject({ status: registered ? 'completed' : 'failed' });
        const charged = (Number(before) * 100 - Number(await balance()) * 100) / 100;
        expect(charged).toBe(registered ? 10 : 0);
        // The key still replays its first answer, and charges nothing more.
        const replay = await register(domain, key);
        expect(replay.status).toBe(200);
        expect((Number(before) * 100 - Number(await balance()) * 100) / 100).toBe(charged);
        expect(await h.module.services.orders.list({ domain })).toHaveLength(1);
        // Nothing was ever sent where the redirect pointed.
        expect(elsewhere.requests).toEqual([]);
      },
    );
  });

  describe.each(FAULTS.map((f, i) => [f[0], i] as const))(
    'when it %s to the premium question before a registration',
    (_label, index) => {
      it('refuses the order with 502 and charges nothing: a premium name is never sold at the catalogue price', async () => {
        const domain = `premium-fault-${index}.com`;
        stub.on('POST /check', FAULTS[index]![1]);
        const before = await balance();

        const res = await register(domain, `key-${domain}`);
        expect(res.status).toBe(502);
        expect(res.body.error).toMatch(/premium name .*nothing was charged/);
        expect(await balance()).toBe(before);
        expect(await h.module.services.orders.list({ domain })).toEqual([]);
        expect(stub.requests.filter((r) => r.path === '/register' && r.body.includes(domain))).toEqual([]);
        expect(elsewhere.requests).toEqual([]);
      });
    },
  );

  describe('on a domain-management call', () => {
    beforeAll(async () => {
      await givenDomain(h.module, 'managed-upstream.com', {
        registrar: 'upstream',
        atRegistrar: false,
        expiryDate: '2027-01-01',
      });
    });

    it.each([
      ['hangs', 0, 504, /^Registrar upstream did not answer within 300 ms/],
      ['answers an HTML error page with 200', 1, 502, /^Registrar upstream failed/],
      [
        'answers JSON of the wrong shape',
        2,
        502,
        /^Registrar upstream gave an answer to domainInformation\.get that cannot be used/,
      ],
      ['redirects to another host', 3, 502, /^Registrar upstream failed/],
      ['drops the connection', 4, 502, /^Registrar upstream failed/],
      ['answers 503', 5, 502, /^Registrar upstream failed: upstream answered 503/],
    ] as const)('answers a clear error when it %s', async (_label, index, status, message) => {
      stub.on('GET /domains/managed-upstream.com/info', FAULTS[index]![1]);
      const res = await h.http.get('/domains/managed-upstream.com/information').set(h.headers());
      expect(res.status).toBe(status);
      expect(Object.keys(res.body)).toEqual(['error']);
      expect(res.body.error).toMatch(message);
      expect(elsewhere.requests).toEqual([]);
    });
  });
});
