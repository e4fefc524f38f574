import { startHarness, type Harness } from '../support/harness';

/**
 * Routes without path parameters are found by an exact-path lookup before the router
 * (src/http/http-api.ts); every other spelling of the path still reaches the router, so both
 * must answer alike.
 */
describe('route matching', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { basePath: '/api/v1' } });
  });
  afterAll(async () => {
    await h.close();
  });

  it.each([
    ['the exact path', '/billing/credits'],
    ['a trailing slash', '/billing/credits/'],
    ['other letter case', '/Billing/Credits'],
    ['the base path', '/api/v1/billing/credits'],
  ])('answers a route without parameters on %s', async (_how, path) => {
    const res = await h.http.get(path).set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toBe('100.00');
    expect(res.headers['x-request-id']).toBeDefined();
  });

  it('answers HEAD on a GET route without a body, and 405 with Allow for a method the route lacks', async () => {
    const head = await h.http.head('/billing/credits').set(h.headers());
    expect(head.status).toBe(200);
    const post = await h.http.post('/billing/credits').set(h.headers());
    expect(post.status).toBe(405);
    expect(post.headers.allow).toContain('GET');
    expect(post.body.error).toMatch(/POST is not allowed/);
  });

  it('still authenticates on the exact path', async () => {
    const res = await h.http.get('/billing/credits').set({ ...h.headers(), token: 'x'.repeat(88) });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Invalid API Token provided' });
  });
});
