import { startHarness, type Harness } from '../support/harness';
import { REGISTRANT, form } from '../support/wire';

/**
 * Search caches registrar answers for SEARCH_CACHE_SECONDS (30 s by default). The harness clock
 * stands still, so any answer cached before an order would be served for the whole test: what
 * search says after our own order is what the order taught it.
 */
describe("search sees the platform's own orders at once", () => {
  let h: Harness;
  const post = (path: string, body: Record<string, unknown>) =>
    h.http.post(path).set(h.headers()).type('form').send(form(body));
  const statusOf = async (sld: string) => {
    const res = await post('/domains/lookup', { searchTerm: sld, tldsToInclude: ['.com'] });
    expect(res.status).toBe(200);
    return (res.body as Array<{ domainName: string; status: string }>).map((r) => [r.domainName, r.status]);
  };
  const order = (action: 'register' | 'transfer', domain: string) =>
    post(`/order/domains/${action}`, {
      domain,
      regperiod: '1',
      nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
      contacts: { Registrant: REGISTRANT },
      ...(action === 'transfer' && { eppcode: 'EPP-123' }),
    });
  beforeAll(async () => {
    h = await startHarness({ settings: { searchCacheSeconds: 30 } });
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers registered right after our registration, in lookup and in suggestions', async () => {
    expect(await statusOf('own-fresh')).toEqual([['own-fresh.com', 'available for registration']]);
    const registered = await order('register', 'own-fresh.com');
    expect(registered.status).toBe(200);
    expect(registered.body).toBe('success');
    expect(await statusOf('own-fresh')).toEqual([['own-fresh.com', 'registered']]);
    const suggestions = await post('/domains/lookup/suggestions', { searchTerm: 'own-fresh', tldsToInclude: ['.com'] });
    expect(suggestions.status).toBe(200);
    expect(suggestions.body[0]).toMatchObject({
      domainName: 'own-fresh.com',
      status: 'registered',
      isRegistered: true,
      isAvailable: false,
    });
  });

  it('answers registered right after a transfer order of ours', async () => {
    expect(await statusOf('own-moving')).toEqual([['own-moving.com', 'available for registration']]);
    const transfer = await order('transfer', 'own-moving.com');
    expect(transfer.status).toBe(200);
    expect(await statusOf('own-moving')).toEqual([['own-moving.com', 'registered']]);
  });

  it('asks the registrar again right after our domain is deleted', async () => {
    expect((await order('register', 'own-deleted.com')).status).toBe(200);
    expect(await statusOf('own-deleted')).toEqual([['own-deleted.com', 'registered']]);
    const deleted = await post('/domains/own-deleted.com/delete', {});
    expect(deleted.status).toBe(200);
    // The sandbox registry lets a deleted name be registered again.
    expect(await statusOf('own-deleted')).toEqual([['own-deleted.com', 'available for registration']]);
  });
});
