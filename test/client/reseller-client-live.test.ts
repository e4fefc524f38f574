import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { version } from '../../package.json';
import { ResellerClient, type ResellerApiError } from '../../src/client';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';

const SDK_REGISTRANT = {
  firstname: 'Ada',
  lastname: 'Lovelace',
  email: 'ada@example.com',
  address1: '1 Analytical Way',
  city: 'London',
  postcode: 'N1 1AA',
  country: 'GB',
  phonenumber: '+44.2071234567',
};

const BASE_PATH = '/modules/addons/DomainsReseller/api/index.php';

describe('ResellerClient against the real server', () => {
  let h: Harness;
  let client: ResellerClient;
  const clientFor = (overrides: Partial<ConstructorParameters<typeof ResellerClient>[0]> = {}) => {
    const { port } = h.server.address() as AddressInfo;
    return new ResellerClient({
      baseUrl: `http://127.0.0.1:${port}`,
      email: h.reseller.email,
      apiKey: h.reseller.apiKey,
      now: () => h.clock.now(),
      ...overrides,
    });
  };
  beforeAll(async () => {
    h = await startHarness({ settings: { basePath: BASE_PATH, authMaxFailures: 1000 } });
    if (!h.server.listening) await once(h.server, 'listening');
    client = clientFor();
  });
  afterAll(async () => {
    await h.close();
  });

  it('reads the version', async () => {
    await expect(client.version()).resolves.toBe(version);
  });

  it('reads the credit balance as a decimal string', async () => {
    await expect(client.credits()).resolves.toBe('100.00');
  });

  it('lists the offered TLDs', async () => {
    await expect(client.tlds()).resolves.toEqual(['.com', '.net', '.org']);
  });

  it('lists TLD pricing rows', async () => {
    const rows = await client.tldPricing();
    expect(rows).toContainEqual(
      expect.objectContaining({
        tld: '.com',
        years: 2,
        registrationPrice: '19.50',
        renewalPrice: '23.00',
        currencyCode: 'USD',
      }),
    );
  });

  it.each([
    ['register', { 1: '10.00', 2: '19.50', 5: '45.00' }],
    ['renew', { 1: '12.00', 2: '23.00' }],
    ['transfer', { 1: '9.00' }],
  ] as const)('prices %s for a domain', async (action, prices) => {
    await expect(client.pricing('example.com', action)).resolves.toEqual(prices);
  });

  it('sends IDN names the server normalises', async () => {
    await expect(client.pricing('Bücher.com')).resolves.toEqual({ 1: '10.00', 2: '19.50', 5: '45.00' });
  });

  it('works under the drop-in base path', async () => {
    const { port } = h.server.address() as AddressInfo;
    const prefixed = clientFor({ baseUrl: `http://127.0.0.1:${port}${BASE_PATH}` });
    await expect(prefixed.credits()).resolves.toBe('100.00');
  });

  it('authenticates without the timestamp header too', async () => {
    await expect(clientFor({ sendTimestamp: false }).credits()).resolves.toBe('100.00');
  });

  it("carries the server's 401 message for a wrong API key", async () => {
    const error = (await clientFor({ apiKey: 'wrong', retries: 0 })
      .credits()
      .catch((e: unknown) => e)) as ResellerApiError;
    expect(error).toMatchObject({
      name: 'ResellerApiError',
      kind: 'http',
      status: 401,
      serverMessage: 'Invalid API Token provided',
    });
  });

  it('carries the 401 for a client clock more than 60 seconds off', async () => {
    const skewed = clientFor({ now: () => new Date(h.clock.now().getTime() + 120_000) });
    await expect(skewed.credits()).rejects.toMatchObject({
      status: 401,
      serverMessage: expect.stringMatching(/timestamp/),
    });
  });

  it('carries a 400 with the message naming the problem', async () => {
    await expect(client.pricing('example.io')).rejects.toMatchObject({
      status: 400,
      serverMessage: expect.stringMatching(/not offered/),
    });
  });

  it("reports a domain outside the reseller's account as the server's 409 error", async () => {
    await expect(client.eppCode('example.com')).rejects.toMatchObject({
      kind: 'http',
      status: 409,
      serverMessage: expect.any(String),
    });
  });

  it("resolves register and renew with the order's id and status; a replay with the same key, the same order", async () => {
    const order = {
      domain: 'sdk-placed.com',
      period: 1,
      nameservers: ['ns1.example.net', 'ns2.example.net'],
      contacts: { registrant: SDK_REGISTRANT },
    };
    const placed = await client.register(order, { idempotencyKey: 'sdk-placed-1' });
    const [stored] = await h.module.services.orders.list({ domain: 'sdk-placed.com' });
    expect(placed).toEqual({ orderId: stored!.id, status: stored!.status });
    await expect(client.register(order, { idempotencyKey: 'sdk-placed-1' })).resolves.toEqual(placed);
    const renewal = await client.renew({ domain: 'sdk-placed.com', period: 1 });
    expect(renewal.orderId).not.toBe(placed.orderId);
    expect(renewal.orderId).toEqual(expect.any(String));
    expect((await client.order(renewal.orderId!)).status).toBe(renewal.status);
  });

  describe('the account lists (beyond the contract)', () => {
    beforeAll(async () => {
      for (const name of ['list-a.com', 'list-b.com', 'list-c.net'])
        await givenDomain(h.module, name, { expiryDate: '2027-01-01' });
      await givenDomain(h.module, 'list-gone.com', { expiryDate: '2026-01-01', status: 'Expired' });
    });

    it('reads a page of domains with filters sent as the server reads them (statuses repeated)', async () => {
      const page = await client.domains({ status: ['Active'], tld: '.com', limit: 1 });
      expect(page.domains.map((d) => d.domain)).toEqual(['list-a.com']);
      expect(page.next).toEqual(expect.any(String));
      const both = await client.domains({ status: ['Active', 'Expired'], search: 'list' });
      expect(both.domains.map((d) => d.domain)).toEqual(['list-a.com', 'list-b.com', 'list-c.net', 'list-gone.com']);
    });

    it('walks every page with eachDomain', async () => {
      const names: string[] = [];
      for await (const d of client.eachDomain({ search: 'list', limit: 1 })) names.push(d.domain);
      expect(names).toEqual(['list-a.com', 'list-b.com', 'list-c.net', 'list-gone.com']);
    });

    it('reads the statement with its running balance, and orders by id', async () => {
      const statement = await client.statement({ from: '2026-11-21', to: '2026-11-21' });
      expect(statement).toMatchObject({ currency: 'USD', openingBalance: '0.00' });
      expect(statement.entries[0]).toMatchObject({ kind: 'top_up', amount: '100.00', balance: '100.00' });
      const entries = [];
      for await (const e of client.eachStatementEntry({ limit: 1 })) entries.push(e);
      expect(entries.map((e) => e.balance).at(-1)).toBe(await client.credits());
      expect((await client.orders({ status: 'failed' })).orders).toEqual([]);
      await expect(client.order('01JZZZZZZZZZZZZZZZZZZZZZZZ')).rejects.toMatchObject({
        kind: 'http',
        status: 404,
        serverMessage: 'There is no such order',
      });
    });

    it('carries a 400 for a filter the server refuses', async () => {
      await expect(client.domains({ sort: 'price' as 'name' })).rejects.toMatchObject({
        status: 400,
        serverMessage: 'sort must be name or expiry',
      });
    });
  });
});
