import openproviderPlugin from '../../../plugins/openprovider';
import { parseOptions } from '../../../plugins/openprovider/src/options';
import { retryAfterMs } from '../../../plugins/openprovider/src/openprovider-client';
import type { RegisterInput, RegistrarPlugin } from '../../../src/core/registrar/plugin';
import {
  REGISTRANT,
  startOpenproviderFixture,
  type OpenproviderFixture,
} from '../../support/openprovider/openprovider-fixture';

const PASSWORD = 'op-secret-password';

describe('the openprovider plugin against the fake Openprovider', () => {
  let f: OpenproviderFixture;
  let plugin: RegistrarPlugin;
  const registration = (domain: string, extra: Partial<RegisterInput> = {}): RegisterInput => ({
    domain,
    period: 1,
    nameservers: ['ns1.host.net', 'ns2.host.net'],
    contacts: { registrant: REGISTRANT },
    addons: {},
    fields: {},
    ...extra,
  });
  const statuses = (operation: string) => f.server.callsOf(operation).map((c) => c.status);

  beforeEach(async () => {
    f = await startOpenproviderFixture();
    plugin = f.plugin();
  });
  afterEach(async () => {
    await f.close();
    expect(f.server.requestViolations).toEqual([]);
    expect(f.server.answerViolations).toEqual([]);
    expect(JSON.stringify(f.logs)).not.toContain(PASSWORD);
  });

  describe('the token', () => {
    it('logs in once and reuses the token for every call', async () => {
      await plugin.checkAvailability(['one.com'], f.ctx());
      await plugin.register(registration('one.com'), f.ctx());
      await plugin.domainSync!.sync({ domain: 'one.com' }, f.ctx());
      expect(f.server.account.logins).toBe(1);
    });

    it('logs in again once when Openprovider refuses an expired token, and the call succeeds', async () => {
      await plugin.checkAvailability(['one.com'], f.ctx());
      f.server.fault('CheckDomain', { kind: 'expire-token' });
      expect(await plugin.checkAvailability(['one.com'], f.ctx())).toEqual([
        { domain: 'one.com', status: 'available', isPremium: false },
      ]);
      expect(statuses('CheckDomain')).toEqual([200, 401, 200]);
      expect(f.server.account.logins).toBe(2);
    });

    it('fails with the user named, never the password, when the login is refused', async () => {
      const wrong = f.plugin({ password: 'not-the-password' });
      const error = await wrong.checkAvailability(['one.com'], f.ctx()).catch((e: Error) => e);
      expect(error).toBeInstanceOf(Error);
      expect((error as Error).message).toMatch(
        /refused the login of API user reseller-api: Authentication\/Authorization Failed/,
      );
      expect((error as Error).message).not.toContain('not-the-password');
      // Nothing was ordered, so a registration is a refusal the platform refunds at once.
      expect(await wrong.register(registration('two.com'), f.ctx())).toMatchObject({ ok: false, reason: 'refused' });
      expect(f.server.callsOf('CreateDomain')).toEqual([]);
    });
  });

  describe('rate limits (429)', () => {
    it('waits as long as Retry-After asks, then sends the call again', async () => {
      f.server.fault('CheckDomain', { kind: '429', retryAfterSeconds: 1 });
      expect(await plugin.checkAvailability(['one.com'], f.ctx())).toHaveLength(1);
      expect(statuses('CheckDomain')).toEqual([429, 200]);
    });

    it('gives up on a Retry-After longer than maxRetryAfterMs: a refusal for an order (nothing was done), a fault for a management call', async () => {
      await plugin.register(registration('one.com'), f.ctx());
      f.server.fault('CreateDomain', { kind: '429', retryAfterSeconds: 60 });
      expect(await plugin.register(registration('two.com'), f.ctx())).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/429/),
      });
      expect(f.server.domains.has('two.com')).toBe(false);
      f.server.fault('UpdateDomain', { kind: '429', retryAfterSeconds: 60 });
      await expect(plugin.registrarLock!.save({ domain: 'one.com', locked: false }, f.ctx())).rejects.toThrow(/429/);
    });

    it('reads Retry-After as seconds or an HTTP date', () => {
      expect(retryAfterMs('3')).toBe(3000);
      expect(retryAfterMs('Thu, 26 Nov 2026 10:00:05 GMT', Date.parse('2026-11-26T10:00:00Z'))).toBe(5000);
      expect(retryAfterMs(null)).toBe(1000);
    });
  });

  describe('faults and the question reconciliation asks', () => {
    it('answers "not in our account" only from a listing that says so; a 5xx or garbage is a fault', async () => {
      expect(await plugin.domainSync!.sync({ domain: 'never.com' }, f.ctx())).toMatchObject({
        ok: false,
        reason: 'refused',
      });
      f.server.fault('ListDomains', { kind: '5xx' });
      await expect(plugin.domainSync!.sync({ domain: 'never.com' }, f.ctx())).rejects.toThrow(/HTTP 500/);
      f.server.fault('ListDomains', { kind: 'html-502' });
      await expect(plugin.domainSync!.sync({ domain: 'never.com' }, f.ctx())).rejects.toThrow(
        /not Openprovider's JSON/,
      );
      f.server.fault('ListDomains', { kind: '5xx' });
      await expect(plugin.transferSync!.sync({ domain: 'never.com' }, f.ctx())).rejects.toThrow(/HTTP 500/);
    });

    it('throws on a 5xx to a create, which Openprovider did not act on, and the domain is then not ours', async () => {
      f.server.fault('CreateDomain', { kind: '5xx' });
      await expect(plugin.register(registration('five.com'), f.ctx())).rejects.toThrow(/HTTP 500/);
      expect(await plugin.domainSync!.sync({ domain: 'five.com' }, f.ctx())).toMatchObject({
        ok: false,
        reason: 'refused',
      });
    });

    it('answers from the account after a lost create answer, and never sends the create again', async () => {
      f.server.fault('CreateDomain', { kind: 'lost' });
      expect(await plugin.register(registration('lost.com'), f.ctx())).toEqual({ ok: true, expiryDate: '2027-11-21' });
      expect(await plugin.register(registration('lost.com'), f.ctx())).toEqual({ ok: true, expiryDate: '2027-11-21' });
      expect(f.server.callsOf('CreateDomain')).toHaveLength(1);
    });

    it('after a create cut off by the deadline, looks the domain up before any second create', async () => {
      // Logged in, and the registrant's handle made, so that the create is the call the deadline cuts.
      await plugin.register(registration('warm.com'), f.ctx());
      // The deadline falls once Openprovider has created the domain and before its answer arrives.
      const deadline = new AbortController();
      f.server.fault('CreateDomain', { kind: 'slow', ms: 1_500, onActed: () => deadline.abort() });
      await expect(plugin.register(registration('slow.com'), f.ctx({ signal: deadline.signal }))).rejects.toThrow(
        /deadline/,
      );
      expect(await plugin.domainSync!.sync({ domain: 'slow.com' }, f.ctx())).toMatchObject({
        ok: true,
        active: true,
        expiryDate: '2027-11-21',
      });
      expect(await plugin.register(registration('slow.com'), f.ctx())).toEqual({ ok: true, expiryDate: '2027-11-21' });
      expect(f.server.callsOf('CreateDomain').filter((c) => c.body.domain.name === 'slow')).toHaveLength(1);
    });
  });

  describe('management', () => {
    it('has Openprovider make an EPP code when it holds none (authcode/reset)', async () => {
      await plugin.register(registration('codeless.com'), f.ctx());
      f.server.domains.get('codeless.com')!.auth_code = '';
      const answer = await plugin.eppCode!.get({ domain: 'codeless.com' }, f.ctx());
      expect(answer).toEqual({ ok: true, eppCode: f.server.domains.get('codeless.com')!.auth_code });
      expect(f.server.callsOf('ResetAuthCode')).toHaveLength(1);
    });

    it('answers no DNS records for a domain without a zone, and refuses a name not in the account', async () => {
      await plugin.register(registration('zoneless.com'), f.ctx());
      expect(await plugin.dnsRecords!.get({ domain: 'zoneless.com' }, f.ctx())).toEqual({ ok: true, records: [] });
      expect(await plugin.nameservers!.get({ domain: 'elsewhere.com' }, f.ctx())).toEqual({
        ok: false,
        reason: 'refused',
        message: 'elsewhere.com is not in our Openprovider account',
      });
    });

    it("refuses a child host that is not under the domain, and passes Openprovider's refusal of a duplicate on", async () => {
      await plugin.register(registration('hosts.com'), f.ctx());
      expect(
        await plugin.childHosts!.register(
          { domain: 'hosts.com', host: 'ns1.other.com', ipAddress: '192.0.2.1' },
          f.ctx(),
        ),
      ).toMatchObject({ ok: false, reason: 'refused', message: 'ns1.other.com is not a host under hosts.com' });
      await plugin.childHosts!.register(
        { domain: 'hosts.com', host: 'ns1.hosts.com', ipAddress: '2001:db8::1' },
        f.ctx(),
      );
      expect(f.server.nameservers.get('ns1.hosts.com')).toEqual({ ip6: '2001:db8::1' });
      expect(
        await plugin.childHosts!.register(
          { domain: 'hosts.com', host: 'ns1.hosts.com', ipAddress: '192.0.2.1' },
          f.ctx(),
        ),
      ).toEqual({ ok: false, reason: 'refused', message: 'Openprovider: Nameserver ns1.hosts.com already exists' });
    });
  });

  describe('contacts', () => {
    it('refuses a new registrant where Openprovider allows it only by a trade, before making a handle; other roles change', async () => {
      await plugin.register(registration('traded.com'), f.ctx());
      f.server.domains.get('traded.com')!.modify_owner_allowed = false;
      const customers = f.server.customers.size;
      expect(
        await plugin.contacts!.save(
          { domain: 'traded.com', contacts: { registrant: { ...REGISTRANT, lastname: 'Byron' } } },
          f.ctx(),
        ),
      ).toEqual({
        ok: false,
        reason: 'refused',
        message: 'the registrant of traded.com can only be changed by a trade at Openprovider',
      });
      expect(f.server.customers.size).toBe(customers);
      expect(
        await plugin.contacts!.save(
          { domain: 'traded.com', contacts: { tech: { ...REGISTRANT, email: 'noc@example.net' } } },
          f.ctx(),
        ),
      ).toEqual({ ok: true });
      const held = f.server.domains.get('traded.com')!;
      expect(f.server.customers.get(held.tech_handle)!.body.email).toBe('noc@example.net');
      expect(held.admin_handle).toBe(held.owner_handle);
    });
  });

  describe('prices of registered names (domainPricing)', () => {
    it('asks domains/prices for the period: premium with the cost for the whole period, standard without a premium flag', async () => {
      await plugin.register(registration('premium-held.com', { premiumCost: 50_000 }), f.ctx());
      expect(
        await plugin.domainPricing!.price({ domain: 'premium-held.com', action: 'renew', period: 2 }, f.ctx()),
      ).toEqual({
        ok: true,
        isPremium: true,
        cost: 110_000,
      });
      expect(
        await plugin.domainPricing!.price({ domain: 'plain.com', action: 'transfer', period: 1 }, f.ctx()),
      ).toEqual({
        ok: true,
        isPremium: false,
        cost: 850,
      });
      expect(f.server.callsOf('GetPrice').map((c) => c.query)).toEqual([
        { 'domain.name': 'premium-held', 'domain.extension': 'com', operation: 'renew', period: '2' },
        { 'domain.name': 'plain', 'domain.extension': 'com', operation: 'transfer', period: '1' },
      ]);
    });

    it('cannot price a premium name without a price in our currency, so the order is refused rather than sold at the TLD price', async () => {
      expect(
        await f
          .plugin({ currency: 'USD' })
          .domainPricing!.price({ domain: 'premium-c.com', action: 'renew', period: 1 }, f.ctx()),
      ).toMatchObject({ ok: false, reason: 'refused', message: expect.stringMatching(/no renew price in USD/) });
    });
  });

  describe('refusals', () => {
    it('answers unavailable for a name Openprovider says exists, with its words', async () => {
      expect(await plugin.register(registration('taken-name.com'), f.ctx())).toEqual({
        ok: false,
        reason: 'unavailable',
        message: 'Openprovider: Domain taken-name.com already exists',
      });
    });

    it('refuses a contact Openprovider cannot take before sending anything', async () => {
      const { phonenumber: _, ...noPhone } = REGISTRANT;
      expect(
        await plugin.register(registration('nophone.com', { contacts: { registrant: noPhone } }), f.ctx()),
      ).toMatchObject({ ok: false, reason: 'refused', message: expect.stringMatching(/phone number/) });
      expect(f.server.callsOf('CreateCustomer')).toEqual([]);
    });

    it('refuses when the Openprovider balance runs out, and tells the operator to top it up', async () => {
      f.server.account.balance = 0;
      expect(await plugin.register(registration('broke.com'), f.ctx())).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/^Openprovider: Your account balance is insufficient/),
      });
      expect(f.logs).toContainEqual(
        expect.objectContaining({ level: 'error', msg: expect.stringMatching(/top up the Openprovider balance/) }),
      );
    });

    it('sends accept_premium_fee only for a premium price the order accepted', async () => {
      expect(await plugin.register(registration('premium-a.com'), f.ctx())).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/did not accept a premium price/),
      });
      expect(await plugin.register(registration('premium-a.com', { premiumCost: 49_999 }), f.ctx())).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/now 500\.00 EUR, more than the 499\.99 the order accepted/),
      });
      expect(f.server.callsOf('CreateDomain')).toEqual([]);
      expect(await plugin.register(registration('premium-a.com', { premiumCost: 50_000 }), f.ctx())).toMatchObject({
        ok: true,
      });
      expect(f.server.callsOf('CreateDomain').map((c) => c.body.accept_premium_fee)).toEqual([600]);
    });

    it('leaves prices in another currency out: a premium name without a usable price is never sold at the TLD price', async () => {
      const dollars = f.plugin({ currency: 'USD' });
      expect(await dollars.checkAvailability(['premium-b.com', 'plain.com'], f.ctx())).toEqual([
        { domain: 'premium-b.com', status: 'available', isPremium: true },
        { domain: 'plain.com', status: 'available', isPremium: false },
      ]);
      expect(await dollars.tldPricing!.prices(f.ctx())).toEqual([]);
    });
  });
});

describe('the fake Openprovider is as strict as the vendor document', () => {
  let f: OpenproviderFixture;
  beforeAll(async () => {
    f = await startOpenproviderFixture();
  });
  afterAll(async () => {
    await f.close();
  });
  const post = (path: string, body: unknown) =>
    fetch(`${f.server.url}/v1beta${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (r) => ({ status: r.status, body: await r.json() }));

  it('answers 400 with its error body for unknown fields, wrong types and missing required fields', async () => {
    expect(await post('/auth/login', { username: 'reseller-api', password: PASSWORD, remember: true })).toEqual({
      status: 400,
      body: { code: 1, desc: expect.stringMatching(/must NOT have additional properties: remember/) },
    });
    expect(await post('/domains/check', { domains: [{ name: 'a', extension: 'com' }], with_price: 'yes' })).toEqual({
      status: 400,
      body: { code: 1, desc: expect.stringMatching(/with_price must be boolean/) },
    });
    expect(await post('/auth/login', { username: 'reseller-api' })).toEqual({
      status: 400,
      body: { code: 1, desc: expect.stringMatching(/must have required property 'password'/) },
    });
    const query = await fetch(`${f.server.url}/v1beta/domains?full_name=a.com&with_everything=true`);
    expect(query.status).toBe(400);
    expect(f.server.requestViolations).toHaveLength(4);
  });
});

describe('openprovider options', () => {
  it('takes the password from the variable passwordEnv names, and never repeats it in a message', () => {
    expect(parseOptions({ username: 'api', passwordEnv: 'OP_PW' }, { OP_PW: 'hunter2-secret' })).toMatchObject({
      isConfigured: true,
      options: { baseUrl: 'https://api.openprovider.eu', password: 'hunter2-secret' },
    });
    expect(() => parseOptions({ username: 'api', password: 'hunter2-secret', passwordEnv: 'OP_PW' }, {})).toThrow(
      'give password or passwordEnv, not both',
    );
    expect(() => parseOptions({ username: 'api', passwordEnv: 'OP_PW' }, {})).toThrow(
      'passwordEnv names OP_PW, which is not set',
    );
    expect(() =>
      parseOptions({ baseUrl: 'https://api.cte.openprovider.eu/v1beta', password: 'hunter2-secret' }, {}),
    ).toThrow(/^baseUrl is the address without \/v1beta.*; username is required/);
    expect(() => parseOptions({ username: 'api', password: 'x', currency: 'euro' }, {})).toThrow(/three-letter/);
  });

  it('is installed without options as not configured', () => {
    const created = openproviderPlugin.create(openproviderPlugin.parseOptions({}), {} as never);
    expect(created).toMatchObject({ reason: expect.stringMatching(/set plugins.openprovider/) });
  });
});
