import { computeToken } from '../../src/core/auth/api-token';
import { startHarness, type Harness } from '../support/harness';

describe('authentication over HTTP', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { authMaxFailures: 1000 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('gives an unknown user and a bad token the identical answer', async () => {
    const unknown = await h.http
      .get('/billing/credits')
      .set({ username: 'nobody@example.com', token: computeToken('nobody@example.com', 'x', h.clock.now()) });
    const badToken = await h.http
      .get('/billing/credits')
      .set({ username: h.reseller.email, token: computeToken(h.reseller.email, 'wrong', h.clock.now()) });
    expect(unknown.status).toBe(401);
    expect(badToken.status).toBe(401);
    expect(unknown.body).toEqual({ error: 'Invalid API Token provided' });
    expect(badToken.body).toEqual(unknown.body);
  });

  it('requires both headers', async () => {
    const res = await h.http.get('/tlds').set({ username: h.reseller.email });
    expect(res.status).toBe(401);
    expect(res.body.error).toMatch(/token/);
  });

  it.each([
    ['empty', ''],
    ['short', 'abc'],
    ['very long', 'A'.repeat(4000)],
    ['non-base64', '%'.repeat(88)],
    ['unicode', 'é'.repeat(88)],
  ])('refuses a %s token with 401, never a 500', async (_label, token) => {
    const res = await h.http.get('/tlds').set({ username: h.reseller.email, token: encodeURIComponent(token) });
    expect(res.status).toBe(401);
    expect(typeof res.body.error).toBe('string');
  });

  it.each(['yesterday', '-5', '1e9', '99999999999999999999', '12.5'])(
    'refuses the garbage timestamp %s with 401',
    async (timestamp) => {
      const res = await h.http.get('/tlds').set({ ...h.headers(), timestamp });
      expect(res.status).toBe(401);
      expect(res.body.error).toMatch(/timestamp/);
    },
  );

  it('accepts a timestamp header within 60 seconds and checks the token against its hour', async () => {
    const ts = Math.floor(h.clock.now().getTime() / 1000) - 30;
    const res = await h.http.get('/billing/credits').set({
      username: h.reseller.email,
      token: computeToken(h.reseller.email, h.reseller.apiKey, new Date(ts * 1000)),
      timestamp: String(ts),
    });
    expect(res.status).toBe(200);
  });

  it('refuses a timestamp more than 60 seconds from server time', async () => {
    const ts = Math.floor(h.clock.now().getTime() / 1000) - 61;
    const res = await h.http.get('/billing/credits').set({ ...h.headers(), timestamp: String(ts) });
    expect(res.status).toBe(401);
  });

  it('refuses a suspended reseller and lets it back in once activated', async () => {
    await h.module.services.resellers.setStatus(h.reseller.email, 'suspended');
    const refused = await h.http.get('/billing/credits').set(h.headers());
    expect(refused.status).toBe(401);
    expect(refused.body.error).toMatch(/suspended/);
    await h.module.services.resellers.setStatus(h.reseller.email, 'active');
    expect((await h.http.get('/billing/credits').set(h.headers())).status).toBe(200);
  });

  it('stops accepting tokens of the old key as soon as the key is rotated', async () => {
    const old = h.headers();
    const apiKey = await h.module.services.resellers.rotateKey(h.reseller.email);
    expect((await h.http.get('/billing/credits').set(old)).status).toBe(401);
    const fresh = { username: h.reseller.email, token: computeToken(h.reseller.email, apiKey, h.clock.now()) };
    expect((await h.http.get('/billing/credits').set(fresh)).status).toBe(200);
  });
});

describe('authentication throttling', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { authMaxFailures: 3, authBlockSeconds: 120 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers 429 with Retry-After once a username has failed too often from an address, even with the right token', async () => {
    for (let i = 0; i < 3; i++) {
      const res = await h.http.get('/tlds').set({ username: h.reseller.email, token: `${'B'.repeat(86)}==` });
      expect(res.status).toBe(401);
    }
    const blocked = await h.http.get('/tlds').set(h.headers());
    expect(blocked.status).toBe(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.error).toMatch(/Too many/);
    h.clock.advance(121_000);
    expect((await h.http.get('/tlds').set(h.headers())).status).toBe(200);
  });
});

describe('oversized headers', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('are refused by the HTTP server itself with 431 before any work is done', async () => {
    const res = await h.http.get('/tlds').set({ username: h.reseller.email, token: 'A'.repeat(20_000) });
    expect(res.status).toBe(431);
  });
});
