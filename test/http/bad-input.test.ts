import { startHarness, type Harness } from '../support/harness';

describe('bad input never gets a 500', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers an unknown route with a 404 JSON error', async () => {
    const res = await h.http.get('/no/such/route');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'No route for GET /no/such/route' });
  });

  it('answers a wrong method with 405 and the allowed ones', async () => {
    const res = await h.http.post('/tlds').set(h.headers());
    expect(res.status).toBe(405);
    expect(res.body.error).toMatch(/GET/);
  });

  it('refuses a body over 64 KiB with 413', async () => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .type('form')
      .send(`domain=example.com&pad=${'x'.repeat(70 * 1024)}`);
    expect(res.status).toBe(413);
    expect(res.body.error).toMatch(/64 KiB/);
  });

  it('refuses an unsupported content type with 415', async () => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .set('content-type', 'text/xml')
      .send('<domain>example.com</domain>');
    expect(res.status).toBe(415);
  });

  it('refuses malformed JSON with 400', async () => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .set('content-type', 'application/json')
      .send('{"domain":');
    expect(res.status).toBe(400);
    expect(typeof res.body.error).toBe('string');
  });

  it.each([
    ['a top-level field', '{"domain":"example.org","domain":"example.net"}', 'domain'],
    ['a field spelt with an escape', '{"domain":"example.org","\\u0064omain":"example.net"}', 'domain'],
    [
      'a nested field',
      '{"domain":"example.org","contacts":{"registrant":{"firstname":"A","firstname":"B"}}}',
      'contacts.registrant.firstname',
    ],
  ])('refuses a JSON body with %s sent twice with 400, as a form field sent twice is', async (_, json, key) => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .set('content-type', 'application/json')
      .send(json);
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: `the JSON body has the field ${key} twice` });
  });

  it('accepts the same key in different objects of one JSON body', async () => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .set('content-type', 'application/json')
      .send('{"domain":"example.org","a":{"domain":"x"},"b":[{"domain":"y"},{"domain":"z"}]}');
    expect(res.status).toBe(200);
  });

  it('accepts JSON bodies', async () => {
    const res = await h.http.get('/order/pricing/domains/register').set(h.headers()).send({ domain: 'example.org' });
    expect(res.status).toBe(200);
    expect(res.body['1']).toBe('10.00');
  });

  it('refuses deeply nested form bodies with 400', async () => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .type('form')
      .send('domain=example.com&a[b][c][d][e][f][g][h]=1');
    expect(res.status).toBe(400);
  });

  it('refuses deeply nested JSON bodies with 400', async () => {
    let nested: unknown = 'x';
    for (let i = 0; i < 50; i++) nested = { n: nested };
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .send({ domain: 'example.com', nested });
    expect(res.status).toBe(400);
  });

  it.each(['__proto__[polluted]=1', 'constructor[prototype][polluted]=1', 'a[__proto__][polluted]=1'])(
    'does not let %s pollute prototypes',
    async (body) => {
      const res = await h.http
        .get('/order/pricing/domains/register')
        .set(h.headers())
        .type('form')
        .send(`domain=example.com&${body}`);
      expect(res.status).toBeLessThan(500);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    },
  );

  it('refuses a __proto__ key in JSON with 400', async () => {
    const res = await h.http
      .get('/order/pricing/domains/register')
      .set(h.headers())
      .set('content-type', 'application/json')
      .send('{"domain":"example.com","__proto__":{"polluted":1}}');
    expect(res.status).toBe(400);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses a domain sent as a list with 400', async () => {
    const res = await h.http.get('/order/pricing/domains/register?domain[]=a.com&domain[]=b.com').set(h.headers());
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('domain must be a single text value');
  });

  it('refuses a percent-encoding that does not decode with 400', async () => {
    const res = await h.http.get('/order/pricing/domains/register?domain=%E0%A4%A').set(h.headers());
    expect(res.status).toBeLessThan(500);
  });

  it('echoes a sane X-Request-Id and makes one otherwise', async () => {
    const given = await h.http.get('/tlds').set(h.headers()).set('X-Request-Id', 'abc-123');
    expect(given.headers['x-request-id']).toBe('abc-123');
    const made = await h.http.get('/tlds').set(h.headers()).set('X-Request-Id', 'bad id with spaces');
    expect(made.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });
});
