import { computeToken } from '../../src/core/auth/api-token';
import { parseForm } from '../../src/http/wire/form-body';
import { type ResellerApiError, ResellerClient, isResellerApiError } from '../../src/client';
import { startStubHttpServer, type StubHttpServer } from '../support/stub-http-server';

const EMAIL = 'reseller@example.com';
const API_KEY = 'key-0123456789';
const NOW = new Date('2026-11-21T10:30:15Z');

const registrant = {
  firstname: 'Ada',
  lastname: 'Lovelace',
  email: 'ada@example.com',
  address1: '1 Analytical Way',
  city: 'London',
  postcode: 'N1 1AA',
  country: 'GB',
  phonenumber: '+44.2071234567',
};

interface Case {
  readonly name: string;
  readonly call: (c: ResellerClient) => Promise<unknown>;
  readonly route: string;
  readonly params: Record<string, unknown>;
  readonly reply: unknown;
  readonly result: unknown;
}

const info = {
  domain: 'example.com',
  nameservers: ['ns1.host.net', 'ns2.host.net'],
  transferLock: true,
  expiryDate: '2027-11-21T00:00:00Z',
  registrationStatus: 'Active',
  status: 'Active',
  restorable: false,
};
const suggestion = {
  domainName: 'shop.com',
  idnDomainName: 'shop.com',
  tld: '.com',
  tldNoDots: 'com',
  sld: 'shop',
  idnSld: 'shop',
  status: 'available for registration',
  legacyStatus: 'available',
  score: 100,
  isRegistered: false,
  isAvailable: true,
  isValidDomain: true,
  domainErrorMessage: '',
  pricing: { 1: { register: '10.00', renew: '12.00', transfer: '9.00' } },
  shortestPeriod: { period: 1, register: '10.00', renew: '12.00', transfer: '9.00' },
  group: '',
  minLength: 1,
  maxLength: 63,
  isPremium: false,
  premiumCostPricing: [],
};

// Every operation of the API: the contract's 17, then the 15 beyond it (docs/api.md#operations).
const CASES: Case[] = [
  {
    name: 'register',
    route: 'POST /order/domains/register',
    reply: 'success',
    result: { orderId: null, status: null },
    call: (c) =>
      c.register({
        domain: 'example.com',
        period: 2,
        nameservers: ['ns1.host.net', 'ns2.host.net'],
        contacts: { registrant, admin: registrant },
        addons: { idProtection: true, dnsManagement: false },
        idnLanguage: 'de',
        originalVars: { userid: 7, tags: ['a', 'b'] },
        domainFields: { 'X-Intended-Use': 'shop' },
      }),
    params: {
      domain: 'example.com',
      regperiod: '2',
      nameservers: { ns1: 'ns1.host.net', ns2: 'ns2.host.net' },
      contacts: { Registrant: registrant, Admin: registrant },
      addons: { idprotection: 'true', dnsmanagement: 'false' },
      idnLanguage: 'de',
      originalvars: { userid: '7', tags: ['a', 'b'] },
      domainfields: Buffer.from('a:1:{s:14:"X-Intended-Use";s:4:"shop";}').toString('base64'),
    },
  },
  {
    name: 'suggestions',
    route: 'POST /domains/lookup/suggestions',
    reply: [suggestion],
    result: [suggestion],
    call: (c) => c.suggestions({ searchTerm: 'shop', tldsToInclude: ['.com', '.net'], premiumEnabled: false }),
    params: { searchTerm: 'shop', tldsToInclude: ['.com', '.net'], premiumEnabled: 'false' },
  },
  {
    name: 'renew',
    route: 'POST /order/domains/renew',
    reply: 'success',
    result: { orderId: null, status: null },
    call: (c) => c.renew({ domain: 'example.com', period: 1, addons: { emailForwarding: true } }),
    params: { domain: 'example.com', regperiod: '1', addons: { emailforwarding: 'true' } },
  },
  {
    name: 'renew of a premium name, accepting its price',
    route: 'POST /order/domains/renew',
    reply: 'success',
    result: { orderId: null, status: null },
    call: (c) => c.renew({ domain: 'example.com', period: 1, premiumCost: '540.00' }),
    params: { domain: 'example.com', regperiod: '1', premiumEnabled: '1', premiumCost: '540.00' },
  },
  {
    name: 'information',
    route: 'GET /domains/example.com/information',
    reply: info,
    result: info,
    call: (c) => c.information('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'save DNS',
    route: 'POST /domains/example.com/dns',
    reply: { success: true },
    result: { success: true },
    call: (c) =>
      c.saveDnsRecords('example.com', [
        { hostname: 'www', type: 'A', address: '192.0.2.1' },
        { hostname: '@', type: 'MX', address: 'mx.example.com', priority: 10 },
      ]),
    params: {
      domain: 'example.com',
      dnsrecords: [
        { hostname: 'www', type: 'A', address: '192.0.2.1' },
        { hostname: '@', type: 'MX', address: 'mx.example.com', priority: '10' },
      ],
    },
  },
  {
    name: 'transfer sync',
    route: 'POST /domains/example.com/transfersync',
    reply: { completed: true, failed: false, reason: '', expirydate: '2027-01-01' },
    result: { completed: true, failed: false, reason: '', expirydate: '2027-01-01' },
    call: (c) => c.transferSync('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'sync',
    route: 'POST /domains/example.com/sync',
    reply: { active: true, expired: false, transferredAway: false, cancelled: false, expirydate: '2027-11-21' },
    result: { active: true, expired: false, transferredAway: false, cancelled: false, expirydate: '2027-11-21' },
    call: (c) => c.sync('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'nameservers',
    route: 'GET /domains/example.com/nameservers',
    reply: { ns1: 'a.ns.net', ns2: 'b.ns.net', ns3: '', ns4: '', ns5: '' },
    result: { ns1: 'a.ns.net', ns2: 'b.ns.net', ns3: '', ns4: '', ns5: '' },
    call: (c) => c.nameservers('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'delete nameserver',
    route: 'POST /domains/example.com/nameservers/delete',
    reply: 'success',
    result: { success: true },
    call: (c) => c.deleteNameserver('example.com', 'ns1.example.com'),
    params: { domain: 'example.com', nameserver: 'ns1.example.com' },
  },
  {
    name: 'save lock',
    route: 'POST /domains/example.com/lock',
    reply: { success: true, locked: true },
    result: { success: true, locked: true },
    call: (c) => c.saveLock('example.com', true),
    params: { domain: 'example.com', lockstatus: 'locked' },
  },
  {
    name: 'ID protection',
    route: 'POST /domains/example.com/protectid',
    reply: { success: true },
    result: { success: true },
    call: (c) => c.saveIdProtection('example.com', false),
    params: { domain: 'example.com', status: '0' },
  },
  {
    name: 'delete',
    route: 'POST /domains/example.com/delete',
    reply: { success: true },
    result: { success: true },
    call: (c) => c.delete('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'EPP code',
    route: 'GET /domains/example.com/eppcode',
    reply: { eppcode: 'S3cret!' },
    result: 'S3cret!',
    call: (c) => c.eppCode('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'register pricing',
    route: 'GET /order/pricing/domains/register',
    reply: { 1: '10.00', 2: '19.50' },
    result: { 1: '10.00', 2: '19.50' },
    call: (c) => c.pricing('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'credits',
    route: 'GET /billing/credits',
    reply: '123.45',
    result: '123.45',
    call: (c) => c.credits(),
    params: {},
  },
  {
    name: 'TLDs',
    route: 'GET /tlds',
    reply: ['.com', '.net'],
    result: ['.com', '.net'],
    call: (c) => c.tlds(),
    params: {},
  },
  {
    name: 'version',
    route: 'GET /version',
    reply: '2.4.1',
    result: '2.4.1',
    call: (c) => c.version(),
    params: {},
  },
  // docs/api.md#operations: beyond the contract
  {
    name: 'transfer',
    route: 'POST /order/domains/transfer',
    reply: 'success',
    result: { orderId: null, status: null },
    call: (c) => c.transfer({ domain: 'example.com', period: 1, eppCode: 'a&b=c', contacts: { registrant } }),
    params: { domain: 'example.com', regperiod: '1', eppcode: 'a&b=c', contacts: { Registrant: registrant } },
  },
  {
    name: 'release',
    route: 'POST /domains/example.com/release',
    reply: { success: true },
    result: { success: true },
    call: (c) => c.release('example.com', 'NEWTAG'),
    params: { domain: 'example.com', transfertag: 'NEWTAG' },
  },
  {
    name: 'contacts',
    route: 'GET /domains/example.com/contact',
    reply: { Registrant: registrant },
    result: { Registrant: registrant },
    call: (c) => c.contacts('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'save contacts',
    route: 'POST /domains/example.com/contact',
    reply: { success: true },
    result: { success: true },
    call: (c) => c.saveContacts('example.com', { tech: registrant }),
    params: { domain: 'example.com', contactdetails: { Tech: registrant } },
  },
  {
    name: 'lock status',
    route: 'GET /domains/example.com/lock',
    reply: 'unlocked',
    result: 'unlocked',
    call: (c) => c.lock('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'DNS records',
    route: 'GET /domains/example.com/dns',
    reply: [{ hostname: '@', type: 'MX', address: 'mx.example.com', priority: 10, recid: '1' }],
    result: [{ hostname: '@', type: 'MX', address: 'mx.example.com', priority: '10', recid: '1' }],
    call: (c) => c.dnsRecords('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'email forwarding',
    route: 'GET /domains/example.com/email',
    reply: [{ prefix: 'info', forwardto: 'me@example.net' }],
    result: [{ prefix: 'info', forwardto: 'me@example.net' }],
    call: (c) => c.emailForwarding('example.com'),
    params: { domain: 'example.com' },
  },
  {
    name: 'save email forwarding',
    route: 'POST /domains/example.com/email',
    reply: { success: true },
    result: { success: true },
    call: (c) =>
      c.saveEmailForwarding('example.com', [
        { prefix: 'info', forwardTo: 'me@example.net' },
        { prefix: 'sales', forwardTo: 'you@example.net' },
      ]),
    params: { domain: 'example.com', prefix: ['info', 'sales'], forwardto: ['me@example.net', 'you@example.net'] },
  },
  {
    name: 'lookup',
    route: 'POST /domains/lookup',
    reply: [suggestion],
    result: [suggestion],
    call: (c) => c.lookup({ punyCodeSearchTerm: 'xn--bcher-kva', isIdnDomain: true }),
    params: { punyCodeSearchTerm: 'xn--bcher-kva', isIdnDomain: 'true' },
  },
  {
    name: 'save nameservers',
    route: 'POST /domains/example.com/nameservers',
    reply: { success: true },
    result: { success: true },
    call: (c) => c.saveNameservers('example.com', ['a.ns.net', 'b.ns.net', 'c.ns.net']),
    params: { domain: 'example.com', ns1: 'a.ns.net', ns2: 'b.ns.net', ns3: 'c.ns.net' },
  },
  {
    name: 'register nameserver',
    route: 'POST /domains/example.com/nameservers/register',
    reply: 'success',
    result: { success: true },
    call: (c) => c.registerNameserver('example.com', 'ns1.example.com', '192.0.2.53'),
    params: { domain: 'example.com', nameserver: 'ns1.example.com', ipaddress: '192.0.2.53' },
  },
  {
    name: 'modify nameserver',
    route: 'POST /domains/example.com/nameservers/modify',
    reply: 'success',
    result: { success: true },
    call: (c) => c.modifyNameserver('example.com', 'ns1.example.com', '192.0.2.53', '2001:db8::53'),
    params: {
      domain: 'example.com',
      nameserver: 'ns1.example.com',
      currentipaddress: '192.0.2.53',
      newipaddress: '2001:db8::53',
    },
  },
  {
    name: 'renew pricing',
    route: 'GET /order/pricing/domains/renew',
    reply: { 1: '12.00' },
    result: { 1: '12.00' },
    call: (c) => c.pricing('example.com', 'renew'),
    params: { domain: 'example.com' },
  },
  {
    name: 'transfer pricing',
    route: 'GET /order/pricing/domains/transfer',
    reply: { 1: '9.00' },
    result: { 1: '9.00' },
    call: (c) => c.pricing('example.com', 'transfer'),
    params: { domain: 'example.com' },
  },
  {
    name: 'TLD pricing',
    route: 'GET /tlds/pricing',
    reply: [
      {
        tld: '.com',
        years: 1,
        registrationPrice: '10.00',
        graceDays: 0,
        graceFee: '0.00',
        redemptionDays: 30,
        redemptionFee: '80.00',
        currencyCode: 'USD',
      },
    ],
    result: [
      {
        tld: '.com',
        years: 1,
        registrationPrice: '10.00',
        graceDays: 0,
        graceFee: '0.00',
        redemptionDays: 30,
        redemptionFee: '80.00',
        currencyCode: 'USD',
      },
    ],
    call: (c) => c.tldPricing(),
    params: {},
  },
];

describe('ResellerClient on the wire', () => {
  let stub: StubHttpServer;
  let client: ResellerClient;
  beforeAll(async () => {
    stub = await startStubHttpServer({ basePath: '/api/index.php' });
  });
  afterAll(async () => {
    await stub.close();
  });
  beforeEach(() => {
    stub.requests.length = 0;
    client = new ResellerClient({
      baseUrl: `${stub.url}/api/index.php/`,
      email: EMAIL,
      apiKey: API_KEY,
      now: () => NOW,
      retryDelayMs: 1,
    });
  });

  it('covers all 32 operations', () => {
    expect(new Set(CASES.map((c) => c.route)).size).toBe(32);
  });

  describe.each(CASES)('$name', ({ call, route, params, reply, result }) => {
    it('sends the documented method, path, headers and PHP-bracket parameters, and parses the reply', async () => {
      stub.on(route, { json: reply });
      await expect(call(client)).resolves.toEqual(result);
      expect(stub.requests).toHaveLength(1);
      const [req] = stub.requests;
      const [method, path] = route.split(' ') as [string, string];
      expect(req!.method).toBe(method);
      expect(decodeURIComponent(req!.path)).toBe(`/api/index.php${path}`);
      const wire = method === 'GET' ? req!.query : req!.body;
      if (method === 'GET') expect(req!.body).toBe('');
      else expect(req!.headers['content-type']).toBe('application/x-www-form-urlencoded');
      // The server's own parser must read back exactly what was meant.
      expect({ ...parseForm(wire) }).toEqual(JSON.parse(JSON.stringify(params)));
      expect(req!.headers.username).toBe(EMAIL);
      expect(req!.headers.timestamp).toBe(String(NOW.getTime() / 1000));
      expect(req!.headers.token).toBe(computeToken(EMAIL, API_KEY, NOW));
      expect(req!.headers.token).toHaveLength(88);
      const isPaid = ['register', 'renew', 'transfer'].some((a) => path === `/order/domains/${a}`);
      if (isPaid) expect(req!.headers['idempotency-key']).toMatch(/^[0-9a-f-]{36}$/);
      else expect(req!.headers['idempotency-key']).toBeUndefined();
    });

    it('turns a documented error body into a ResellerApiError with the status and the server message', async () => {
      stub.on(route, { status: 409, json: { error: 'Domain not found in your account' } });
      const error = await call(client).catch((e: unknown) => e);
      expect(isResellerApiError(error)).toBe(true);
      expect(error).toMatchObject({
        kind: 'http',
        status: 409,
        serverMessage: 'Domain not found in your account',
        message: 'Domain not found in your account',
      });
      expect((error as ResellerApiError).details.requestId).toBe('req-1');
    });

    it('refuses a reply of the wrong shape as invalid_reply', async () => {
      stub.on(route, { json: { unexpected: ['shape'] } });
      await expect(call(client)).rejects.toMatchObject({ kind: 'invalid_reply', status: 200 });
    });
  });

  it('puts the domain into the path percent-encoded', async () => {
    stub.on('GET /domains/bücher.com/eppcode', { json: { eppcode: 'x' } });
    await client.eppCode('bücher.com');
    expect(stub.requests[0]!.path).toBe('/api/index.php/domains/b%C3%BCcher.com/eppcode');
  });

  it('treats a 200 answer carrying an error key as an error, as deployed clients do', async () => {
    stub.on('GET /version', { status: 200, json: { error: 'Module disabled' } });
    await expect(client.version()).rejects.toMatchObject({
      kind: 'http',
      status: 200,
      serverMessage: 'Module disabled',
    });
  });

  it('reports a non-JSON error page with its status', async () => {
    stub.on('GET /version', { status: 502, text: '<html>Bad gateway</html>' });
    const error = (await client.version().catch((e: unknown) => e)) as ResellerApiError;
    expect(error).toMatchObject({ kind: 'http', status: 502, serverMessage: undefined });
    expect(error.message).toMatch(/HTTP 502/);
  });

  it('reports a 200 answer that is not JSON as invalid_reply', async () => {
    stub.on('GET /tlds', { status: 200, text: 'not json' });
    await expect(client.tlds()).rejects.toMatchObject({ kind: 'invalid_reply' });
  });

  it('never follows a redirect (it would carry the credentials elsewhere)', async () => {
    stub.on('GET /version', { status: 302, text: '', headers: { location: 'http://elsewhere.example/' } });
    await expect(client.version()).rejects.toMatchObject({ kind: 'http', status: 302 });
    expect(stub.requests).toHaveLength(1);
  });

  it('computes the token from the current hour and sends no timestamp when told not to', async () => {
    const plain = new ResellerClient({
      baseUrl: stub.url,
      email: EMAIL,
      apiKey: API_KEY,
      now: () => NOW,
      sendTimestamp: false,
    });
    stub.on('GET /version', { json: '1.0.0' });
    await plain.version();
    expect(stub.requests[0]!.headers.timestamp).toBeUndefined();
    expect(stub.requests[0]!.headers.token).toBe(computeToken(EMAIL, API_KEY, NOW));
  });

  describe('timeouts and cancellation', () => {
    it('gives up at the per-call timeout with kind timeout', async () => {
      stub.on('GET /version', { hang: true });
      await expect(client.version({ timeoutMs: 100 })).rejects.toMatchObject({ kind: 'timeout', status: 0 });
    });

    it("stops when the caller's signal fires, with kind aborted", async () => {
      stub.on('GET /tlds', { hang: true });
      const controller = new AbortController();
      const pending = client.tlds({ signal: controller.signal });
      setTimeout(() => controller.abort(new Error('user left')), 20);
      await expect(pending).rejects.toMatchObject({ kind: 'aborted' });
    });

    it('does not start a call whose signal has already fired', async () => {
      await expect(client.credits({ signal: AbortSignal.abort() })).rejects.toMatchObject({ kind: 'aborted' });
    });
  });

  describe('retries and idempotency', () => {
    const order = {
      domain: 'example.com',
      period: 1,
      nameservers: ['ns1.host.net', 'ns2.host.net'],
      contacts: { registrant },
    };

    it('retries a read after a dropped connection and after 503', async () => {
      stub.on(
        'GET /tlds',
        { drop: true },
        { status: 503, json: { error: 'busy' }, headers: { 'retry-after': '0' } },
        { json: ['.com'] },
      );
      await expect(client.tlds()).resolves.toEqual(['.com']);
      expect(stub.requests).toHaveLength(3);
    });

    it('retries a paid order with the same generated Idempotency-Key', async () => {
      stub.on(
        'POST /order/domains/register',
        { drop: true },
        { status: 429, json: { error: 'slow down' }, headers: { 'retry-after': '0' } },
        { json: 'success' },
      );
      await client.register(order);
      expect(stub.requests).toHaveLength(3);
      const keys = stub.requests.map((r) => r.headers['idempotency-key']);
      expect(new Set(keys).size).toBe(1);
      expect(keys[0]).toMatch(/^[0-9a-f-]{36}$/);
    });

    it("resolves a paid call with the order's id and status from the Order-Id and Order-Status headers", async () => {
      const placed = { 'order-id': '01JZ0000000000000000000000', 'order-status': 'pending' };
      stub.on('POST /order/domains/register', { json: 'success', headers: placed });
      stub.on('POST /order/domains/renew', { json: 'success', headers: { ...placed, 'order-status': 'completed' } });
      stub.on('POST /order/domains/transfer', { json: 'success', headers: { ...placed, 'order-status': 'failed' } });
      await expect(client.register(order)).resolves.toEqual({ orderId: placed['order-id'], status: 'pending' });
      await expect(client.renew({ domain: 'example.com', period: 1 })).resolves.toEqual({
        orderId: placed['order-id'],
        status: 'completed',
      });
      await expect(client.transfer({ ...order, eppCode: 'x' })).resolves.toEqual({
        orderId: placed['order-id'],
        status: 'failed',
      });
    });

    it('calls an Order-Status it does not know an invalid reply', async () => {
      stub.on('POST /order/domains/register', {
        json: 'success',
        headers: { 'order-id': '01JZ0000000000000000000000', 'order-status': 'shipped' },
      });
      await expect(client.register(order)).rejects.toMatchObject({
        kind: 'invalid_reply',
        message: expect.stringMatching(/Order-Status header should be pending, completed or failed/),
      });
    });

    it("sends the caller's Idempotency-Key and returns it on the error for a later retry", async () => {
      stub.on('POST /order/domains/renew', { status: 400, json: { error: 'Insufficient credit' } });
      const error = (await client
        .renew({ domain: 'example.com', period: 1 }, { idempotencyKey: 'order-42' })
        .catch((e: unknown) => e)) as ResellerApiError;
      expect(stub.requests[0]!.headers['idempotency-key']).toBe('order-42');
      expect(error.details.idempotencyKey).toBe('order-42');
      expect(stub.requests).toHaveLength(1);
    });

    it('gives every paid call its own key', async () => {
      stub.on('POST /order/domains/register', { json: 'success' });
      await client.register(order);
      await client.register(order);
      expect(stub.requests[0]!.headers['idempotency-key']).not.toBe(stub.requests[1]!.headers['idempotency-key']);
    });

    it('never retries a paid order sent without a key', async () => {
      stub.on('POST /order/domains/transfer', { drop: true }, { json: 'success' });
      await expect(client.transfer({ ...order, eppCode: 'x' }, { idempotencyKey: null })).rejects.toMatchObject({
        kind: 'network',
        status: 0,
      });
      expect(stub.requests).toHaveLength(1);
      expect(stub.requests[0]!.headers['idempotency-key']).toBeUndefined();
    });

    it('never retries a paid order the server answered with 500 or 502', async () => {
      stub.on(
        'POST /order/domains/register',
        { status: 502, json: { error: 'Registrar sandbox failed' } },
        { json: 'success' },
      );
      await expect(client.register(order)).rejects.toMatchObject({
        status: 502,
        serverMessage: 'Registrar sandbox failed',
      });
      expect(stub.requests).toHaveLength(1);
    });

    it.each([
      ['delete', (c: ResellerClient) => c.delete('example.com'), 'POST /domains/example.com/delete'],
      ['release', (c: ResellerClient) => c.release('example.com', 'TAG'), 'POST /domains/example.com/release'],
      [
        'register nameserver',
        (c: ResellerClient) => c.registerNameserver('example.com', 'ns1.example.com', '192.0.2.1'),
        'POST /domains/example.com/nameservers/register',
      ],
    ])('never retries %s', async (_name, call, route) => {
      stub.on(route, { status: 503, json: { error: 'busy' } }, { json: { success: true } });
      await expect(call(client)).rejects.toMatchObject({ status: 503 });
      expect(stub.requests).toHaveLength(1);
    });

    it('stops retrying after the configured number of retries', async () => {
      const once = new ResellerClient({
        baseUrl: stub.url,
        email: EMAIL,
        apiKey: API_KEY,
        now: () => NOW,
        retries: 1,
        retryDelayMs: 1,
      });
      stub.on('GET /version', { status: 503, json: { error: 'down for maintenance' } });
      await expect(once.version()).rejects.toMatchObject({ status: 503, serverMessage: 'down for maintenance' });
      expect(stub.requests).toHaveLength(2);
    });
  });

  it('refuses bad options up front', () => {
    expect(() => new ResellerClient({ baseUrl: 'not a url', email: EMAIL, apiKey: API_KEY })).toThrow(/absolute URL/);
    expect(() => new ResellerClient({ baseUrl: 'ftp://x', email: EMAIL, apiKey: API_KEY })).toThrow(/http/);
    expect(() => new ResellerClient({ baseUrl: 'https://x', email: '', apiKey: API_KEY })).toThrow(/required/);
    expect(() => new ResellerClient({ baseUrl: 'https://x', email: EMAIL, apiKey: API_KEY, timeoutMs: 0 })).toThrow(
      /timeoutMs/,
    );
  });
});
