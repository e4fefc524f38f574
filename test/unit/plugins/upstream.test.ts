import upstream from '../../../plugins/upstream';
import { parseOptions } from '../../../plugins/upstream/src/options';
import { createUpstreamRegistrar } from '../../../plugins/upstream/src/upstream-registrar';
import { ResellerClient } from '../../../src/client';
import {
  isPluginNotConfigured,
  type CallContext,
  type RegisterInput,
  type RegistrarPlugin,
} from '../../../src/core/registrar/plugin';
import { recordingLogger, testPluginHost } from '../../support/fakes';
import { startStubHttpServer, type StubHttpServer } from '../../support/stub-http-server';

const EMAIL = 'operator@example.net';
const ctx = (transactionId = '01JORDER0000000000000000001', signal = new AbortController().signal): CallContext => ({
  signal,
  transactionId,
});
const registration = (domain: string): RegisterInput => ({
  domain,
  period: 1,
  nameservers: ['ns1.host.net', 'ns2.host.net'],
  contacts: { registrant: { firstname: 'Ada', email: 'ada@example.com' } },
  addons: { idprotection: true },
  fields: {},
});
const info = (status: string, expiryDate?: string) => ({
  domain: 'x.com',
  nameservers: ['ns1.host.net', 'ns2.host.net'],
  transferLock: true,
  registrationStatus: status,
  status,
  ...(expiryDate ? { expiryDate: `${expiryDate}T00:00:00Z` } : {}),
});
const sync = (over: Record<string, unknown> = {}) => ({
  active: false,
  expired: false,
  transferredAway: false,
  cancelled: false,
  ...over,
});

describe('upstream registrar plugin', () => {
  describe('options', () => {
    it('loads unconfigured, as not configured with a reason naming what to set', async () => {
      const created = await upstream.create(upstream.parseOptions({}), testPluginHost());
      expect(isPluginNotConfigured(created) && created.reason).toMatch(/^set plugins\.upstream \(baseUrl, email/);
    });

    it('reports every problem at once', () => {
      expect(() => parseOptions({ email: 'nobody', apiKey: 'k', apiKeyEnv: 'KEY', timeoutMs: 5 }, {})).toThrow(
        'baseUrl is required (the upstream API address, like https://api.provider.example); email must be an email address; give apiKey or apiKeyEnv, not both; timeoutMs must be a whole number of milliseconds from 100 to 600000',
      );
      expect(() => parseOptions({ baseUrl: 'ftp://x.example/?a=1', email: EMAIL }, {})).toThrow(
        'baseUrl must be an http or https URL; baseUrl must not carry a query string or fragment; apiKey or apiKeyEnv is required',
      );
    });

    it('takes the API key from the environment variable named by apiKeyEnv, and names it when it is unset', () => {
      expect(
        parseOptions(
          { baseUrl: 'https://api.provider.example/', email: EMAIL, apiKeyEnv: 'UPSTREAM_KEY', timeoutMs: '5000' },
          { UPSTREAM_KEY: 'secret' },
        ),
      ).toEqual({
        isConfigured: true,
        options: { baseUrl: 'https://api.provider.example', email: EMAIL, apiKey: 'secret', timeoutMs: 5000 },
      });
      expect(() =>
        parseOptions({ baseUrl: 'https://api.provider.example', email: EMAIL, apiKeyEnv: 'UPSTREAM_KEY' }, {}),
      ).toThrow('apiKeyEnv names UPSTREAM_KEY, which is not set');
    });
  });

  describe('against a scripted upstream', () => {
    let stub: StubHttpServer;
    let logger: ReturnType<typeof recordingLogger>;
    let plugin: RegistrarPlugin;
    beforeEach(async () => {
      stub = await startStubHttpServer({ basePath: '/api' });
      logger = recordingLogger();
      const host = { ...testPluginHost(), logger };
      // No SDK retries here, so each scripted answer is one attempt.
      const client = new ResellerClient({
        baseUrl: `${stub.url}/api`,
        email: EMAIL,
        apiKey: 'key',
        retries: 0,
        timeoutMs: 5_000,
      });
      plugin = createUpstreamRegistrar(
        { baseUrl: `${stub.url}/api`, email: EMAIL, apiKey: 'key', timeoutMs: 5_000 },
        host,
        client,
      );
    });
    afterEach(() => stub.close());
    const paths = () => stub.requests.map((r) => `${r.method} ${decodeURIComponent(r.path.replace('/api', ''))}`);

    describe('register', () => {
      it("sends the platform's transaction id as the Idempotency-Key, then reads the domain back: done when the upstream shows it registered", async () => {
        stub.on('POST /order/domains/register', { json: 'success' });
        stub.on('GET /domains/x.com/information', { json: info('Active', '2027-11-21') });
        expect(await plugin.register(registration('x.com'), ctx('01JORDERKEY'))).toEqual({
          ok: true,
          expiryDate: '2027-11-21',
        });
        expect(stub.requests[0]!.headers['idempotency-key']).toBe('01JORDERKEY');
        expect(stub.requests[0]!.headers.username).toBe(EMAIL);
        expect(new URLSearchParams(stub.requests[0]!.body).get('addons[idprotection]')).toBe('true');
        expect(paths()).toEqual(['POST /order/domains/register', 'GET /domains/x.com/information']);
      });

      it('relays a registration the upstream accepted but has not finished as pending', async () => {
        stub.on('POST /order/domains/register', { json: 'success' });
        stub.on(
          'GET /domains/x.com/information',
          { json: info('Pending Registration') },
          { status: 502, json: { error: 'Registrar acme failed: down' } },
        );
        expect(await plugin.register(registration('x.com'), ctx())).toMatchObject({
          ok: false,
          reason: 'pending',
          message: 'x.com is Pending Registration at the upstream',
        });
        expect(await plugin.register(registration('x.com'), ctx())).toMatchObject({
          ok: false,
          reason: 'pending',
          message: expect.stringMatching(/cannot be read yet/),
        });
      });

      it.each([
        [400, 'x.com is not available: x.com is already registered', 'unavailable'],
        [400, 'Insufficient credit: the registration of x.com costs 8.00 and the balance is 5.00', 'refused'],
        [404, 'Not found', 'refused'],
        [429, 'Too many requests', 'refused'],
      ])('reads a %i (%s) as a definite %s: nothing happened upstream', async (status, error, reason) => {
        stub.on('POST /order/domains/register', { status, json: { error } });
        expect(await plugin.register(registration('x.com'), ctx())).toEqual({ ok: false, reason, message: error });
        expect(paths()).toEqual(['POST /order/domains/register']);
      });

      it('refuses on rejected credentials, and tells the operator', async () => {
        stub.on('POST /order/domains/register', { status: 401, json: { error: 'Invalid API Token provided' } });
        expect(await plugin.register(registration('x.com'), ctx())).toEqual({
          ok: false,
          reason: 'refused',
          message: 'the upstream refused our credentials: Invalid API Token provided',
        });
        expect(logger.entries).toContainEqual(expect.objectContaining({ level: 'error' }));
      });

      it.each([
        [409, 'A request with this Idempotency-Key is still in progress; retry later'],
        [422, 'Idempotency-Key "k" was already used for a different request'],
        [408, 'Request timeout'],
      ])('throws on a %i: it may be our own earlier attempt, so the outcome is unknown', async (status, error) => {
        stub.on('POST /order/domains/register', { status, json: { error } });
        await expect(plugin.register(registration('x.com'), ctx())).rejects.toThrow(
          `upstream register failed (HTTP ${status}): ${error}`,
        );
      });

      it("throws on a proxy's 502 without asking anything more: the upstream may still be working on it", async () => {
        stub.on('POST /order/domains/register', { status: 502, text: '<html>Bad gateway</html>' });
        await expect(plugin.register(registration('x.com'), ctx())).rejects.toThrow(/HTTP 502/);
        expect(paths()).toEqual(['POST /order/domains/register']);
      });

      it("refuses on an error the upstream's application answered (5xx, or 200 with an error) once it says the domain is not in our account", async () => {
        stub.on(
          'POST /order/domains/register',
          { status: 502, json: { error: 'The registrar refused the registration of x.com: policy' } },
          { status: 200, json: { error: 'Registration failed' } },
        );
        stub.on('POST /domains/x.com/sync', {
          status: 409,
          json: { error: 'The domain x.com is not in your account' },
        });
        expect(await plugin.register(registration('x.com'), ctx())).toEqual({
          ok: false,
          reason: 'refused',
          message: 'The registrar refused the registration of x.com: policy',
        });
        expect(await plugin.register(registration('x.com'), ctx())).toEqual({
          ok: false,
          reason: 'refused',
          message: 'Registration failed',
        });
      });

      it('throws on such an error when the upstream holds the domain, or cannot say', async () => {
        stub.on('POST /order/domains/register', { status: 500, json: { error: 'Internal error (request 7)' } });
        stub.on('POST /domains/x.com/sync', { json: sync() }, { status: 503, json: { error: 'busy' } });
        await expect(plugin.register(registration('x.com'), ctx())).rejects.toThrow(
          'upstream register failed (HTTP 500): Internal error (request 7)',
        );
        await expect(plugin.register(registration('x.com'), ctx())).rejects.toThrow(/HTTP 500/);
      });

      it('throws on a dropped connection, and stops at the deadline signal', async () => {
        stub.on('POST /order/domains/register', { drop: true }, { hang: true });
        await expect(plugin.register(registration('x.com'), ctx())).rejects.toThrow(
          /upstream register failed \(network\)/,
        );
        const deadline = new AbortController();
        const call = plugin.register(registration('x.com'), ctx('t', deadline.signal));
        while (stub.requests.length < 2) await new Promise((r) => setTimeout(r, 5));
        deadline.abort(new Error('deadline'));
        await expect(call).rejects.toThrow(/upstream register failed \(aborted\)/);
      });
    });

    describe('renew', () => {
      it('is done when the expiry moved by the period, pending when it did not', async () => {
        stub.on(
          'GET /domains/x.com/information',
          { json: info('Active', '2027-11-21') },
          { json: info('Active', '2028-11-21') },
          { json: info('Active', '2028-11-21') },
          { json: info('Active', '2028-11-21') },
        );
        stub.on('POST /order/domains/renew', { json: 'success' });
        expect(
          await plugin.renew({ domain: 'x.com', period: 1, currentExpiryDate: '2027-11-21' }, ctx('01JRENEW')),
        ).toEqual({ ok: true, expiryDate: '2028-11-21' });
        expect(stub.requests.find((r) => r.path.endsWith('/renew'))!.headers['idempotency-key']).toBe('01JRENEW');
        expect(
          await plugin.renew({ domain: 'x.com', period: 1, currentExpiryDate: '2028-11-21' }, ctx()),
        ).toMatchObject({ ok: false, reason: 'pending' });
      });

      it('refuses without sending anything when the expiry cannot be read first', async () => {
        stub.on('GET /domains/x.com/information', { status: 502, json: { error: 'Registrar acme failed: down' } });
        expect(
          await plugin.renew({ domain: 'x.com', period: 1, currentExpiryDate: '2027-11-21' }, ctx()),
        ).toMatchObject({ ok: false, reason: 'refused', message: expect.stringMatching(/nothing was renewed/) });
        expect(paths()).toEqual(['GET /domains/x.com/information']);
      });

      it("throws on the upstream's own error: an expiry not moved yet proves nothing, reconciliation looks again later", async () => {
        stub.on('GET /domains/x.com/information', { json: info('Active', '2027-11-21') });
        stub.on('POST /order/domains/renew', {
          status: 502,
          json: { error: 'The registrar refused the renewal of x.com: no' },
        });
        await expect(plugin.renew({ domain: 'x.com', period: 1, currentExpiryDate: null }, ctx())).rejects.toThrow(
          'upstream renew failed (HTTP 502): The registrar refused the renewal of x.com: no',
        );
        expect(paths()).toEqual(['GET /domains/x.com/information', 'POST /order/domains/renew']);
      });
    });

    describe('transfer', () => {
      it('is pending until the upstream reports it completed with an expiry date', async () => {
        stub.on('POST /order/domains/transfer', { json: 'success' });
        stub.on(
          'POST /domains/x.com/transfersync',
          { json: { completed: false, failed: false, reason: '' } },
          { json: { completed: true, failed: false, reason: '', expirydate: '2027-11-21' } },
        );
        expect(
          await plugin.transfer!.transfer({ ...registration('x.com'), eppCode: 'EPP' }, ctx('01JXFER')),
        ).toMatchObject({ ok: false, reason: 'pending' });
        expect(new URLSearchParams(stub.requests[0]!.body).get('eppcode')).toBe('EPP');
        expect(stub.requests[0]!.headers['idempotency-key']).toBe('01JXFER');
        expect(await plugin.transfer!.transfer({ ...registration('x.com'), eppCode: 'EPP' }, ctx())).toEqual({
          ok: true,
          expiryDate: '2027-11-21',
        });
      });
    });

    describe('reads reconciliation settles money on', () => {
      it('domain sync: only "not in your account" (409) is a refusal; a wrong key, a wrong URL or a failing registrar is a fault', async () => {
        stub.on(
          'POST /domains/x.com/sync',
          { status: 409, json: { error: 'The domain x.com is not in your account' } },
          { status: 401, json: { error: 'Invalid API Token provided' } },
          { status: 404, json: { error: 'Not found' } },
          { status: 400, json: { error: 'bad' } },
          { status: 502, json: { error: 'Registrar sandbox refused: not registered' } },
        );
        expect(await plugin.domainSync!.sync({ domain: 'x.com' }, ctx())).toEqual({
          ok: false,
          reason: 'refused',
          message: 'The domain x.com is not in your account',
        });
        for (const status of [401, 404, 400, 502])
          await expect(plugin.domainSync!.sync({ domain: 'x.com' }, ctx())).rejects.toThrow(`HTTP ${status}`);
      });

      it('domain sync: relays a registration still pending upstream, and reads dates leniently', async () => {
        stub.on(
          'POST /domains/x.com/sync',
          { json: sync() },
          { json: sync({ active: true, expirydate: '2027-11-21 00:00:00' }) },
        );
        stub.on('GET /domains/x.com/information', { json: info('Pending Registration') });
        expect(await plugin.domainSync!.sync({ domain: 'x.com' }, ctx())).toMatchObject({
          ok: false,
          reason: 'pending',
        });
        expect(await plugin.domainSync!.sync({ domain: 'x.com' }, ctx())).toEqual({
          ok: true,
          active: true,
          expired: false,
          transferredAway: false,
          cancelled: false,
          expiryDate: '2027-11-21',
        });
      });

      it('transfer sync: a domain not in our account upstream is a failed transfer; "completed" without a date while pending upstream is not completed', async () => {
        stub.on(
          'POST /domains/x.com/transfersync',
          { status: 409, json: { error: 'The domain x.com is not in your account' } },
          { json: { completed: true, failed: false, reason: '' } },
        );
        stub.on('GET /domains/x.com/information', { json: info('Pending Transfer') });
        expect(await plugin.transferSync!.sync({ domain: 'x.com' }, ctx())).toEqual({
          ok: true,
          completed: false,
          failed: true,
          reason: 'x.com is not in our account at the upstream',
        });
        expect(await plugin.transferSync!.sync({ domain: 'x.com' }, ctx())).toEqual({
          ok: true,
          completed: false,
          failed: false,
        });
      });

      it('information: a pending domain is relayed as pending; otherwise the docs/api.md#domain-information fields are mapped', async () => {
        stub.on(
          'GET /domains/x.com/information',
          { json: info('Pending Transfer') },
          {
            json: {
              ...info('Active', '2027-11-21'),
              idProtectionStatus: true,
              registrantEmailAddress: 'ada@example.com',
              irtpTransferLock: false,
              restorable: false,
              status: 'Active',
            },
          },
        );
        expect(await plugin.domainInformation!.get({ domain: 'x.com' }, ctx())).toMatchObject({
          ok: false,
          reason: 'pending',
        });
        expect(await plugin.domainInformation!.get({ domain: 'x.com' }, ctx())).toEqual({
          ok: true,
          nameservers: ['ns1.host.net', 'ns2.host.net'],
          transferLock: true,
          expiryDate: '2027-11-21',
          registrationStatus: 'Active',
          idProtection: true,
          restorable: false,
          registrantEmail: 'ada@example.com',
          extra: { irtpTransferLock: false },
        });
      });
    });

    describe('domain management', () => {
      it('relays a change the upstream completes later as pending, a 4xx as a refusal, and rejected credentials as a fault', async () => {
        stub.on(
          'POST /domains/x.com/lock',
          { json: { success: true, lockstatus: 'locked', pending: true } },
          { status: 409, json: { error: 'The domain x.com is not in your account' } },
          { status: 401, json: { error: 'Invalid API Token provided' } },
          { json: { success: true } },
        );
        expect(await plugin.registrarLock!.save({ domain: 'x.com', locked: true }, ctx())).toMatchObject({
          ok: false,
          reason: 'pending',
        });
        expect(await plugin.registrarLock!.save({ domain: 'x.com', locked: true }, ctx())).toEqual({
          ok: false,
          reason: 'refused',
          message: 'The domain x.com is not in your account',
        });
        await expect(plugin.registrarLock!.save({ domain: 'x.com', locked: true }, ctx())).rejects.toThrow(/HTTP 401/);
        expect(await plugin.registrarLock!.save({ domain: 'x.com', locked: true }, ctx())).toEqual({ ok: true });
        expect(new URLSearchParams(stub.requests[0]!.body).get('lockstatus')).toBe('locked');
      });

      it("reads contacts by the billing platform's display names, and DNS records without their N/A priorities", async () => {
        stub.on('GET /domains/x.com/contact', {
          json: {
            Registrant: { 'First Name': 'Ada', Email_Address: 'ada@example.com', 'Tax ID': 'GB1', Fax: '1' },
            Technical: { firstname: 'Charles' },
            Other: { x: 'y' },
          },
        });
        stub.on('GET /domains/x.com/dns', {
          json: [
            { hostname: '@', type: 'A', address: '192.0.2.1', priority: 'N/A', recid: '4' },
            { hostname: '@', type: 'MX', address: 'mx.x.com', priority: '10' },
          ],
        });
        expect(await plugin.contacts!.get({ domain: 'x.com' }, ctx())).toEqual({
          ok: true,
          contacts: {
            registrant: { firstname: 'Ada', email: 'ada@example.com', tax_id: 'GB1' },
            tech: { firstname: 'Charles' },
          },
        });
        expect(await plugin.dnsRecords!.get({ domain: 'x.com' }, ctx())).toEqual({
          ok: true,
          records: [
            { hostname: '@', type: 'A', address: '192.0.2.1', recid: '4' },
            { hostname: '@', type: 'MX', address: 'mx.x.com', priority: '10' },
          ],
        });
      });
    });

    describe('search and prices', () => {
      const element = (domainName: string, status: string, extra: Record<string, unknown> = {}) => ({
        domainName,
        status,
        isAvailable: status === 'available for registration',
        score: 100,
        isPremium: false,
        premiumCostPricing: [],
        ...extra,
      });

      it('asks one lookup per label with its TLDs, maps statuses and premium prices, and leaves out the names of a failed lookup', async () => {
        stub.on(
          'POST /domains/lookup',
          {
            json: [
              element('shop.com', 'registered'),
              element('shop.net', 'available for registration', {
                isPremium: true,
                premiumCostPricing: { register: '500.00', renew: '450.00', CurrencyCode: 'USD' },
              }),
              element('shop.org', 'tld not supported'),
            ],
          },
          { status: 503, json: { error: 'busy' } },
        );
        const answers = await plugin.checkAvailability(['shop.com', 'shop.net', 'shop.org', 'cafe.com'], ctx());
        expect(answers).toEqual([
          { domain: 'shop.com', status: 'registered' },
          {
            domain: 'shop.net',
            status: 'available',
            isPremium: true,
            premiumPrice: { register: 50_000, renew: 45_000 },
          },
          { domain: 'shop.org', status: 'unknown' },
        ]);
        const bodies = stub.requests.map((r) => new URLSearchParams(r.body));
        expect(bodies.map((b) => [b.get('searchTerm'), b.getAll('tldsToInclude'), b.get('premiumEnabled')])).toEqual([
          ['shop', ['.com', '.net', '.org'], 'true'],
          ['cafe', ['.com'], 'true'],
        ]);
      });

      it('throws when every lookup fails', async () => {
        stub.on('POST /domains/lookup', { status: 401, json: { error: 'Invalid API Token provided' } });
        await expect(plugin.checkAvailability(['shop.com'], ctx())).rejects.toThrow(/HTTP 401/);
      });

      it('suggests names other than the exact ones, at most as many as asked', async () => {
        stub.on('POST /domains/lookup/suggestions', {
          json: [
            element('shop.com', 'registered'),
            element('getshop.com', 'available for registration', { score: 78 }),
            element('shophq.com', 'available for registration', { score: 77 }),
            element('myshop.com', 'available for registration', { score: 76 }),
          ],
        });
        expect(await plugin.suggestions!.suggest({ term: 'shop', tlds: ['.com'], limit: 2 }, ctx())).toEqual([
          { domain: 'getshop.com', score: 78 },
          { domain: 'shophq.com', score: 77 },
        ]);
        expect(new URLSearchParams(stub.requests[0]!.body).get('suggestionSettings[maxResults]')).toBe('2');
      });

      it('turns the TLD price list into minor units, leaving out rows it cannot read', async () => {
        const row = { graceDays: 0, graceFee: '0.00', redemptionDays: 0, redemptionFee: '0.00', currencyCode: 'USD' };
        stub.on('GET /tlds/pricing', {
          json: [
            { tld: '.com', years: 1, registrationPrice: '8.00', renewalPrice: '9.5', ...row },
            { tld: 'net', years: 2, transferPrice: '7.00', ...row },
            { tld: '.org', years: 11, registrationPrice: '1.00', ...row },
          ],
        });
        expect(await plugin.tldPricing!.prices(ctx())).toEqual([
          { tld: '.com', period: 1, register: 800, renew: 950 },
          { tld: '.net', period: 2, transfer: 700 },
        ]);
      });
    });
  });
});
