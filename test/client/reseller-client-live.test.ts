import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { version } from '../../package.json';
import { ResellerClient, type ResellerApiError } from '../../src/client';
import { startHarness, type Harness } from '../support/harness';

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
});
