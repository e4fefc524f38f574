import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { ResellerClient } from '../../../src/client';
import { fixedClock } from '../../../src/core/common/clock';
import { cli } from '../../support/cli';
import { NOW, TEST_MASTER_KEY, type Harness } from '../../support/harness';
import { startFakeOpenprovider, type FakeOpenprovider } from '../../support/openprovider/fake-openprovider';
import { REGISTRANT } from '../../support/openprovider/openprovider-fixture';
import { endToEnd } from '../../support/end-to-end';

/**
 * The whole HTTP API on top of the fake Openprovider: money moves at the platform, domains in the
 * fake's account, every request the plugin sends and every answer it gets validated against the
 * schemas derived from the vendor's document. Runs on SQLite and, with TEST_DB=mariadb, on MariaDB.
 */
describe('the Openprovider plugin end to end, through the HTTP API', () => {
  let op: FakeOpenprovider;
  let h: Harness;
  let api: ResellerClient;
  const clock = fixedClock(NOW);
  const e2e = endToEnd(REGISTRANT);
  const { order, balance, domain, orderOf, reconcile, resultsOf, rejection } = e2e;

  beforeAll(async () => {
    op = await startFakeOpenprovider({ now: () => clock.now() });
    ({ h, api } = await e2e.start({
      clock,
      registrar: 'openprovider',
      settings: {
        plugins: { openprovider: { baseUrl: op.url, username: 'reseller-api', password: 'op-secret-password' } },
        reconcileAfterMs: 0,
        registrarTimeoutMs: 3_000,
      },
      topUp: 200_000,
    }));
    await h.module.services.catalogue.setPremiumRule('default', { kind: 'markup', basisPoints: 2000 });
  });
  afterAll(async () => {
    await h.close();
    await op.close();
  });
  afterEach(() => {
    expect(op.requestViolations).toEqual([]);
    expect(op.answerViolations).toEqual([]);
  });

  it('registers, renews, manages and deletes a domain', async () => {
    const start = await balance();
    await api.register(order('bakery.com', 2));
    expect(await domain('bakery.com')).toMatchObject({
      status: 'Active',
      registrar: 'openprovider',
      expiryDate: '2028-11-21',
    });
    const held = op.domains.get('bakery.com')!;
    expect(held.name_servers.map((ns) => ns.name)).toEqual(['ns1.host.net', 'ns2.host.net']);
    // One customer handle for the registrant, holding every role.
    expect(op.customers.get(held.owner_handle)!.body).toMatchObject({
      name: { first_name: 'Ada', last_name: 'Lovelace' },
      phone: { country_code: '+44', area_code: '207', subscriber_number: '1234567' },
    });
    expect([held.admin_handle, held.tech_handle, held.billing_handle]).toEqual([
      held.owner_handle,
      held.owner_handle,
      held.owner_handle,
    ]);
    expect(op.callsOf('CreateDomain')[0]!.body).not.toHaveProperty('accept_premium_fee');

    await api.renew({ domain: 'bakery.com', period: 1 });
    expect(await domain('bakery.com')).toMatchObject({ status: 'Active', expiryDate: '2029-11-21' });
    expect(op.callsOf('RenewDomain').map((c) => c.body.period)).toEqual([1]);
    expect(await balance()).toBe(start - 1950 - 1200);

    await api.saveNameservers('bakery.com', ['ns3.host.net', 'ns4.host.net']);
    expect(held.name_servers.map((ns) => ns.name)).toEqual(['ns3.host.net', 'ns4.host.net']);
    expect(await api.nameservers('bakery.com')).toMatchObject({ ns1: 'ns3.host.net', ns2: 'ns4.host.net', ns3: '' });

    await api.registerNameserver('bakery.com', 'ns1.bakery.com', '192.0.2.1');
    expect(op.nameservers.get('ns1.bakery.com')).toEqual({ ip: '192.0.2.1' });
    await api.modifyNameserver('bakery.com', 'ns1.bakery.com', '192.0.2.1', '192.0.2.2');
    expect(op.nameservers.get('ns1.bakery.com')).toEqual({ ip: '192.0.2.2' });
    await api.deleteNameserver('bakery.com', 'ns1.bakery.com');
    expect(op.nameservers.has('ns1.bakery.com')).toBe(false);

    await api.saveLock('bakery.com', false);
    expect(held.is_locked).toBe(false);
    expect(await api.lock('bakery.com')).toBe('unlocked');
    await api.saveLock('bakery.com', true);
    expect(await api.lock('bakery.com')).toBe('locked');

    await api.saveIdProtection('bakery.com', true);
    expect(held.is_private_whois_enabled).toBe(true);

    await api.saveDnsRecords('bakery.com', [
      { hostname: '@', type: 'A', address: '192.0.2.10' },
      { hostname: 'www', type: 'CNAME', address: 'bakery.com' },
      { hostname: '@', type: 'MX', address: 'mail.bakery.com', priority: 10 },
    ]);
    // Openprovider's own SOA and NS records stay out of the reseller's view.
    expect(op.zones.get('bakery.com')!.records.map((r) => r.type)).toEqual(['SOA', 'NS', 'A', 'CNAME', 'MX']);
    expect(
      (await api.dnsRecords('bakery.com')).map(({ hostname, type, address, priority }) => [
        hostname,
        type,
        address,
        priority,
      ]),
    ).toEqual([
      ['@', 'A', '192.0.2.10', 'N/A'],
      ['www', 'CNAME', 'bakery.com', 'N/A'],
      ['@', 'MX', 'mail.bakery.com', '10'],
    ]);
    await api.saveDnsRecords('bakery.com', [{ hostname: '@', type: 'A', address: '192.0.2.11' }]);
    expect((await api.dnsRecords('bakery.com')).map((r) => r.address)).toEqual(['192.0.2.11']);
    expect(op.callsOf('UpdateZone')).toHaveLength(1);

    expect(await api.information('bakery.com')).toMatchObject({
      domain: 'bakery.com',
      nameservers: ['ns3.host.net', 'ns4.host.net'],
      transferLock: true,
      idProtectionStatus: true,
      expiryDate: '2029-11-21T00:00:00Z',
      registrantEmailAddress: 'ada@example.net',
    });
    expect(op.callsOf('GetDomain').at(-1)!.path).toBe(`/v1beta/domains/${held.id}`);
    expect(await api.eppCode('bakery.com')).toBe(held.auth_code);

    expect((await api.contacts('bakery.com')).Registrant).toMatchObject({
      'First Name': 'Ada',
      'Last Name': 'Lovelace',
      Country: 'GB',
    });
    // A changed contact becomes a new handle; the roles not changed keep theirs.
    const firstHandle = held.owner_handle;
    await api.saveContacts('bakery.com', { registrant: { ...REGISTRANT, firstname: 'Augusta' } });
    expect(held.owner_handle).not.toBe(firstHandle);
    expect(held.admin_handle).toBe(firstHandle);
    expect((await api.contacts('bakery.com')).Registrant).toMatchObject({ 'First Name': 'Augusta', Country: 'GB' });

    expect(await api.sync('bakery.com')).toEqual({
      active: true,
      expired: false,
      transferredAway: false,
      cancelled: false,
      expirydate: '2029-11-21',
    });

    await expect(api.delete('bakery.com')).resolves.toMatchObject({ success: true, status: 'Cancelled' });
    expect((await domain('bakery.com')).status).toBe('Cancelled');
    expect(held).toMatchObject({ status: 'DEL', is_deleted: true });
    expect(await balance()).toBe(start - 1950 - 1200);
  });

  it('registers a premium name only at the price the order accepted, telling Openprovider the fee', async () => {
    const start = await balance();
    // The account's premium price is 500.00; the group sells at cost + 20 %.
    expect(await rejection(api.register({ ...order('premium-cakes.com') }))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/premium name.*costs 600\.00/),
    });
    expect(op.callsOf('CreateDomain').filter((c) => c.body.domain.name === 'premium-cakes')).toEqual([]);

    await api.register({ ...order('premium-cakes.com'), premiumCost: '600.00' });
    expect(await domain('premium-cakes.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    const create = op.callsOf('CreateDomain').find((c) => c.body.domain.name === 'premium-cakes')!;
    // Openprovider's own premium fee for the name, in the supplier's currency, as its check answered it.
    expect(create.body.accept_premium_fee).toBe(600);
    expect(await balance()).toBe(start - 60000);

    // Its renewal is premium too: 550.00 at Openprovider, 660.00 to the reseller.
    const checksBefore = op.callsOf('CheckDomain').length;
    await api.renew({ domain: 'premium-cakes.com', period: 1, premiumCost: '660.00' });
    expect(await domain('premium-cakes.com')).toMatchObject({ expiryDate: '2028-11-21' });
    expect(await balance()).toBe(start - 60000 - 66000);
    // Asked as the price of a registered name (domainPricing: domains/prices for the renewal), not from availability.
    expect(op.callsOf('CheckDomain')).toHaveLength(checksBefore);
    expect(op.callsOf('GetPrice').at(-1)!.query).toEqual({
      'domain.name': 'premium-cakes',
      'domain.extension': 'com',
      operation: 'renew',
      period: '1',
    });
  });

  it('restores a domain Openprovider holds deleted when the reseller renews it', async () => {
    await api.register(order('florist.com'));
    // Deleted at Openprovider (say, from its control panel) before the platform's sync noticed.
    const held = op.domains.get('florist.com')!;
    Object.assign(held, { status: 'DEL', is_deleted: true, restorable_until: new Date('2026-12-20T00:00:00Z') });
    expect(await api.information('florist.com')).toMatchObject({ registrationStatus: 'Cancelled', restorable: true });

    await api.renew({ domain: 'florist.com', period: 1 });
    expect(op.callsOf('RestoreDomain')).toHaveLength(1);
    expect(held).toMatchObject({ status: 'ACT', is_deleted: false });
    expect(await domain('florist.com')).toMatchObject({ status: 'Active', expiryDate: '2028-11-21' });
  });

  it('transfers a domain in: pending until Openprovider completes it, then reconciliation completes the order; a failed one is refunded', async () => {
    op.elsewhere.set('taken-moving.com', 'Move#Code1');
    op.elsewhere.set('taken-stuck.com', 'Stuck#Code1');
    const start = await balance();
    await api.transfer({ ...order('taken-moving.com'), eppCode: 'Move#Code1' });
    await api.transfer({ ...order('taken-stuck.com'), eppCode: 'Stuck#Code1' });
    expect(await domain('taken-moving.com')).toMatchObject({ status: 'Pending Transfer' });
    expect(await balance()).toBe(start - 1800);
    expect(await api.transferSync('taken-moving.com')).toMatchObject({ completed: false, failed: false });
    expect(resultsOf(await reconcile())).toEqual({ 'taken-moving.com': 'unresolved', 'taken-stuck.com': 'unresolved' });

    op.completeTransfer('taken-moving.com', 'ACT');
    op.completeTransfer('taken-stuck.com', 'FAI');
    expect(resultsOf(await reconcile())).toEqual({ 'taken-moving.com': 'completed', 'taken-stuck.com': 'refunded' });
    expect(await domain('taken-moving.com')).toMatchObject({ status: 'Active', expiryDate: '2028-11-21' });
    expect(await domain('taken-stuck.com')).toMatchObject({ status: 'Cancelled' });
    expect(await balance()).toBe(start - 900);

    // A wrong EPP code is Openprovider's definite refusal: refunded at once.
    op.elsewhere.set('taken-wrong.com', 'Right#Code');
    expect(await rejection(api.transfer({ ...order('taken-wrong.com'), eppCode: 'Wrong#Code' }))).toMatchObject({
      status: 502,
      message: expect.stringMatching(/Openprovider: The authorization code is invalid/),
    });
    expect(await balance()).toBe(start - 900);
  });

  it('refunds what Openprovider refuses, and settles what it answered late or lost without creating twice', async () => {
    const start = await balance();
    expect(await rejection(api.register(order('taken-cafe.com')))).toMatchObject({
      status: 400,
      message: expect.stringMatching(/taken-cafe\.com/),
    });
    // The answer to the create is lost after Openprovider acted.
    op.fault('CreateDomain', { kind: 'lost' });
    await api.register(order('lost-answer.com'));
    // A 5xx from Openprovider's application without acting.
    op.fault('CreateDomain', { kind: '5xx' });
    await rejection(api.register(order('failed-answer.com')));
    expect(op.domains.has('lost-answer.com')).toBe(true);
    expect(op.domains.has('failed-answer.com')).toBe(false);

    expect(resultsOf(await reconcile())).toMatchObject({
      'failed-answer.com': 'refunded',
    });
    expect(await domain('lost-answer.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    expect(await balance()).toBe(start - 1000);
    // Each create was sent once: nothing is resent after a lost answer.
    expect(op.callsOf('CreateDomain').filter((c) => c.body.domain.name === 'lost-answer')).toHaveLength(1);
    expect((await orderOf('lost-answer.com')).status).toBe('completed');
  });

  it('settles through reconciliation a registration Openprovider finished after the platform stopped waiting', async () => {
    const start = await balance();
    op.fault('CreateDomain', { kind: 'slow', ms: 3_600 });
    // The platform stops waiting at its deadline: the order is accepted and stays pending, the money reserved.
    await api.register(order('slow-oven.com'));
    expect((await orderOf('slow-oven.com')).status).toBe('pending');
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect(resultsOf(await reconcile())).toMatchObject({ 'slow-oven.com': 'completed' });
    expect(await domain('slow-oven.com')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    expect(await balance()).toBe(start - 1000);
    expect(op.callsOf('CreateDomain').filter((c) => c.body.domain.name === 'slow-oven')).toHaveLength(1);
  });

  it('searches with Openprovider: availability of exact names and its suggestions', async () => {
    const found = await api.lookup({ searchTerm: 'patisserie', tldsToInclude: ['.com', '.net'] });
    expect(found.map((s) => [s.domainName, s.status])).toEqual([
      ['patisserie.com', 'available for registration'],
      ['patisserie.net', 'available for registration'],
    ]);
    const suggested = await api.suggestions({ searchTerm: 'patisserie', tldsToInclude: ['.com'] });
    expect(suggested.map((s) => s.domainName)).toEqual(expect.arrayContaining(['patisserie-online.com']));
    expect(op.callsOf('SuggestNameDomain').at(-1)!.body).toMatchObject({ name: 'patisserie', tlds: ['com'] });
  });

  it('refuses an order when the Openprovider account cannot pay, and says so to the operator', async () => {
    const start = await balance();
    const before = op.account.balance;
    op.account.balance = 100;
    const refusal = await rejection(api.register(order('broke.com')));
    op.account.balance = before;
    expect(refusal).toMatchObject({
      status: 502,
      message: expect.stringMatching(/Openprovider: Your account balance is insufficient.*balance is too low/),
    });
    expect(await balance()).toBe(start);
    expect((await orderOf('broke.com')).status).toBe('failed');
  });

  it('imports Openprovider cost prices as sale prices with a margin (reseller-admin tld import-costs)', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'openprovider-'));
    const configFile = path.join(dir, 'config.json');
    writeFileSync(
      configFile,
      JSON.stringify({
        plugins: { openprovider: { baseUrl: op.url, username: 'reseller-api', passwordEnv: 'OP_PASSWORD' } },
      }),
    );
    const env = {
      DATABASE_URL: h.databaseUrl,
      MASTER_KEY: TEST_MASTER_KEY,
      LOG_LEVEL: 'silent',
      CONFIG_FILE: configFile,
    };
    // A plugin reads the variable passwordEnv names from the process's environment.
    process.env.OP_PASSWORD = 'op-secret-password';
    try {
      const run = await cli(
        env,
        'tld',
        'import-costs',
        'openprovider',
        '--group',
        'default',
        '--percent',
        '20',
        '--fixed',
        '1.00',
        '--round',
        'x.99',
        '--tlds',
        '.com,.net',
      );
      expect(run.code).toBe(0);
      // .com costs 8.50 to register and transfer and 9.25 to renew at Openprovider; .net 10.10.
      expect(run.json().changes).toEqual(
        expect.arrayContaining([
          { tld: '.com', action: 'register', period: 1, cost: '8.50', from: '10.00', to: '11.99' },
          { tld: '.com', action: 'renew', period: 1, cost: '9.25', from: '12.00', to: '12.99' },
          { tld: '.com', action: 'transfer', period: 1, cost: '8.50', from: '9.00', to: '11.99' },
          { tld: '.net', action: 'register', period: 1, cost: '10.10', from: '10.00', to: '13.99' },
        ]),
      );
    } finally {
      delete process.env.OP_PASSWORD;
      rmSync(dir, { recursive: true, force: true });
    }
    // Another process's write reaches this server's catalogue once its short read cache expires.
    h.clock.advance(60_000);
    expect(await api.pricing('example.com', 'renew')).toMatchObject({ 1: '12.99' });
    expect(op.callsOf('ListTlds').every((c) => c.query.with_price === 'true')).toBe(true);
  });
});
