import { version } from '../../package.json';
import { startHarness, type Harness } from '../support/harness';

describe('catalogue and credit endpoints', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers GET /billing/credits with the balance as a decimal string', async () => {
    const res = await h.http.get('/billing/credits').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/application\/json/);
    expect(res.body).toBe('100.00');
  });

  it('answers GET /version with the package version string', async () => {
    const res = await h.http.get('/version').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toBe(version);
  });

  it("lists the TLDs offered to the reseller's group", async () => {
    const res = await h.http.get('/tlds').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toEqual(['.com', '.net', '.org']);
  });

  it('does not list TLDs priced only for another group', async () => {
    await h.module.services.resellers.createGroup('vip');
    await h.module.services.catalogue.setTld({
      tld: '.io',
      group: 'vip',
      registrar: 'sandbox',
      prices: { register: { 1: 3000 } },
    });
    const res = await h.http.get('/tlds').set(h.headers());
    expect(res.body).not.toContain('.io');
  });

  it('prices registration per period from the query string', async () => {
    const res = await h.http.get('/order/pricing/domains/register?domain=example.com').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ 1: '10.00', 2: '19.50', 5: '45.00' });
  });

  it('reads GET parameters from a form body too, and normalises IDN names', async () => {
    const res = await h.http
      .get('/order/pricing/domains/renew')
      .set(h.headers())
      .type('form')
      .send('domain=B%C3%BCcher.COM');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ 1: '12.00', 2: '23.00' });
  });

  it('prices transfers', async () => {
    const res = await h.http
      .get('/order/pricing/domains/transfer')
      .query({ domain: 'xn--bcher-kva.net' })
      .set(h.headers());
    expect(res.body).toEqual({ 1: '9.00' });
  });

  it('refuses a TLD that is not offered with a 400 naming it', async () => {
    const res = await h.http.get('/order/pricing/domains/register?domain=example.io').set(h.headers());
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(/not offered/);
  });

  it.each(['a_b.com', '-a.com', 'a..b.com', '1.2.3.4', `${'a'.repeat(64)}.com`, 'com', 'www.example.com'])(
    'refuses the invalid domain %s with a 400',
    async (domain) => {
      const res = await h.http.get('/order/pricing/domains/register').query({ domain }).set(h.headers());
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
    },
  );

  it('requires the domain parameter', async () => {
    const res = await h.http.get('/order/pricing/domains/register').set(h.headers());
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'domain is required' });
  });

  it('lists TLD pricing with one row per TLD and period', async () => {
    const res = await h.http.get('/tlds/pricing').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toContainEqual({
      tld: '.com',
      years: 1,
      registrationPrice: '10.00',
      renewalPrice: '12.00',
      transferPrice: '9.00',
      graceDays: 0,
      graceFee: '0.00',
      redemptionDays: 0,
      redemptionFee: '0.00',
      currencyCode: 'USD',
    });
    expect(res.body).toContainEqual(expect.objectContaining({ tld: '.com', years: 5, registrationPrice: '45.00' }));
    expect(res.body.find((r: { tld: string; years: number }) => r.tld === '.com' && r.years === 5)).not.toHaveProperty(
      'renewalPrice',
    );
  });
});
