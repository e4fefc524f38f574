import { startHarness, type Harness } from '../support/harness';

describe('domain search end to end against the sandbox registrar', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('lists the exact name on every offered TLD first, .com first, then available suggestions', async () => {
    const res = await h.http
      .post('/domains/lookup/suggestions')
      .set(h.headers())
      .type('form')
      .send('searchTerm=coffeeshop');
    expect(res.status).toBe(200);
    const names = res.body.map((r: { domainName: string }) => r.domainName);
    expect(names.slice(0, 3)).toEqual(['coffeeshop.com', 'coffeeshop.net', 'coffeeshop.org']);
    // The sandbox has the suggestions capability: its names come first among the suggestions.
    expect(names).toContain('getcoffeeshop.com');
    expect(new Set(names).size).toBe(names.length);
    for (const r of res.body.slice(3)) {
      expect(r.status).toBe('available for registration');
      expect(r.score).toBeLessThan(100);
    }
  });

  it('reports a sandbox taken- name as registered', async () => {
    const res = await h.http
      .post('/domains/lookup/suggestions')
      .set(h.headers())
      .type('form')
      .send('searchTerm=taken-bakery&tldsToInclude=.com');
    expect(res.status).toBe(200);
    expect(res.body[0]).toMatchObject({
      domainName: 'taken-bakery.com',
      status: 'registered',
      legacyStatus: 'unavailable',
      isRegistered: true,
      isAvailable: false,
    });
  });

  it('builds IDN suggestions from the Unicode label, each a valid IDNA name (bücher → getbücher.com, never getxn--bcher-kva.com)', async () => {
    const res = await h.http
      .post('/domains/lookup/suggestions')
      .set(h.headers())
      .type('form')
      .send(`searchTerm=${encodeURIComponent('bücher')}&tldsToInclude=.com`);
    expect(res.status).toBe(200);
    const shown = (res.body as Array<{ domainName: string; idnDomainName: string }>).map((r) => [
      r.domainName,
      r.idnDomainName,
    ]);
    expect(shown).toEqual([
      ['xn--bcher-kva.com', 'bücher.com'],
      ['xn--getbcher-95a.com', 'getbücher.com'],
      ['xn--bcheronline-thb.com', 'bücheronline.com'],
      ['xn--mybcher-p2a.com', 'mybücher.com'],
      ['xn--bcherhq-n2a.com', 'bücherhq.com'],
    ]);
  });

  it('looks up the exact names only', async () => {
    const res = await h.http
      .post('/domains/lookup')
      .set(h.headers())
      .type('form')
      .send('searchTerm=bakery&tldsToInclude[]=.com&tldsToInclude[]=.net');
    expect(res.status).toBe(200);
    expect(res.body.map((r: { domainName: string; status: string }) => [r.domainName, r.status])).toEqual([
      ['bakery.com', 'available for registration'],
      ['bakery.net', 'available for registration'],
    ]);
  });
});

describe('domain search against the sandbox with its suggestions switched off', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { plugins: { sandbox: { disabledCapabilities: ['suggestions'] } } } });
  });
  afterAll(async () => {
    await h.close();
  });

  it("falls back to the platform's own generator", async () => {
    const res = await h.http
      .post('/domains/lookup/suggestions')
      .set(h.headers())
      .type('form')
      .send('searchTerm=coffeeshop');
    expect(res.status).toBe(200);
    const names = res.body.map((r: { domainName: string }) => r.domainName);
    expect(names).toContain('coffee-shop.com');
  });
});
