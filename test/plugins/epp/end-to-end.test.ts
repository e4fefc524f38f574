import { isResellerApiError, type ResellerClient } from '../../../src/client';
import { makeTestCertificates, type TestCertificates } from '../../support/epp/certificates';
import { clTRIDFor, REGISTRANT, startEppFixture, type EppFixture } from '../../support/epp/epp-fixture';
import { endToEnd } from '../../support/end-to-end';
import type { Harness } from '../../support/harness';

/**
 * The full order flow through the platform's HTTP API (with the client SDK) on top of the EPP
 * test registry: money moves at the platform, domains at the registry, every frame either way
 * validated against the RFC schemas. Runs on SQLite and, with TEST_DB=mariadb, on MariaDB.
 */
describe('the EPP plugin end to end, through the HTTP API', () => {
  let certificates: TestCertificates;
  let f: EppFixture;
  let h: Harness;
  let api: ResellerClient;
  const e2e = endToEnd(REGISTRANT);
  const { order, balance, domain, orderOf, reconcile, resultsOf } = e2e;
  const clTRIDsOf = (command: string) => f.server.commands(command).map((c) => c.clTRID);

  beforeAll(async () => {
    certificates = makeTestCertificates();
    f = await startEppFixture({ certificates });
    ({ h, api } = await e2e.start({
      settings: { plugins: { epp: f.pluginOptions }, reconcileAfterMs: 0 },
      topUp: 90_000,
    }));
    await h.module.services.catalogue.setTld({
      tld: '.test',
      group: 'default',
      registrar: 'epp',
      prices: { register: { 1: 1000, 2: 1900 }, renew: { 1: 1200 }, transfer: { 1: 900 } },
    });
  });
  afterAll(async () => {
    await h.close();
    await f.close();
    certificates.remove();
    expect(f.server.protocolErrors).toEqual([]);
    expect(f.server.stats.logouts).toBeGreaterThanOrEqual(1);
  });

  it('registers, renews, manages and deletes a domain, each paid EPP command carrying its order id', async () => {
    const start = await balance();
    await api.register(order('shop.test', 2));
    expect(await domain('shop.test')).toMatchObject({ status: 'Active', registrar: 'epp', expiryDate: '2028-11-21' });
    const registry = f.server.registry.domains.get('shop.test')!;
    expect(registry).toMatchObject({ sponsor: 'registrar-a', hostObjects: ['ns1.host.net', 'ns2.host.net'] });
    expect(clTRIDsOf('domain:create')).toEqual([expect.stringMatching(clTRIDFor((await orderOf('shop.test')).id))]);
    expect((await api.lookup({ searchTerm: 'shop.test' }))[0]).toMatchObject({
      domainName: 'shop.test',
      status: 'registered',
    });

    await api.renew({ domain: 'shop.test', period: 1 });
    expect(await domain('shop.test')).toMatchObject({ status: 'Active', expiryDate: '2029-11-21' });
    expect(registry.expiresAt.toISOString().slice(0, 10)).toBe('2029-11-21');
    const renewal = (await h.module.services.orders.list({ domain: 'shop.test' })).find((o) => o.action === 'renew')!;
    expect(clTRIDsOf('domain:renew')).toEqual([expect.stringMatching(clTRIDFor(renewal.id))]);
    expect(await balance()).toBe(start - 1900 - 1200);

    await api.saveNameservers('shop.test', ['ns3.host.net', 'ns4.host.net']);
    expect(registry.hostObjects).toEqual(['ns3.host.net', 'ns4.host.net']);
    expect(await api.nameservers('shop.test')).toEqual({
      ns1: 'ns3.host.net',
      ns2: 'ns4.host.net',
      ns3: '',
      ns4: '',
      ns5: '',
    });

    await api.registerNameserver('shop.test', 'ns1.shop.test', '192.0.2.1');
    expect(f.server.registry.hosts.get('ns1.shop.test')!.addresses).toEqual([{ ip: 'v4', address: '192.0.2.1' }]);
    await api.modifyNameserver('shop.test', 'ns1.shop.test', '192.0.2.1', '192.0.2.2');
    expect(f.server.registry.hosts.get('ns1.shop.test')!.addresses).toEqual([{ ip: 'v4', address: '192.0.2.2' }]);
    await api.deleteNameserver('shop.test', 'ns1.shop.test');
    expect(f.server.registry.hosts.has('ns1.shop.test')).toBe(false);

    await api.saveLock('shop.test', true);
    expect(registry.statuses.has('clientTransferProhibited')).toBe(true);
    expect(await api.lock('shop.test')).toBe('locked');
    await api.saveLock('shop.test', false);
    expect(registry.statuses.has('clientTransferProhibited')).toBe(false);
    expect(await api.lock('shop.test')).toBe('unlocked');

    expect(await api.information('shop.test')).toMatchObject({
      domain: 'shop.test',
      nameservers: ['ns3.host.net', 'ns4.host.net'],
      transferLock: false,
      expiryDate: '2029-11-21T00:00:00Z',
      registrantEmailAddress: 'ada@example.com',
    });
    expect(await api.eppCode('shop.test')).toBe(registry.authInfo);
    expect((await api.contacts('shop.test')).Registrant).toMatchObject({
      'First Name': 'Ada',
      'Last Name': 'Lovelace',
      Country: 'GB',
    });
    expect(await api.sync('shop.test')).toEqual({
      active: true,
      expired: false,
      transferredAway: false,
      cancelled: false,
      expirydate: '2029-11-21',
    });

    await expect(api.delete('shop.test')).resolves.toMatchObject({ success: true, status: 'Cancelled' });
    expect((await domain('shop.test')).status).toBe('Cancelled');
    expect([...registry.statuses, ...registry.rgp]).toEqual(['pendingDelete', 'redemptionPeriod']);
    // Deletion is not refunded (docs/api.md#delete-a-domain).
    expect(await balance()).toBe(start - 3100);
  });

  it('restores a domain the registry holds in redemption when the reseller renews it (RFC 3915)', async () => {
    await api.register(order('bakery.test'));
    // The registry deleted it (say, unpaid at the registry) before the platform's sync noticed.
    const registry = f.server.registry.domains.get('bakery.test')!;
    registry.statuses = new Set(['pendingDelete']);
    registry.rgp = new Set(['redemptionPeriod']);
    expect(await api.information('bakery.test')).toMatchObject({ registrationStatus: 'Redemption', restorable: true });

    await api.renew({ domain: 'bakery.test', period: 1 });
    expect([...registry.rgp]).toEqual(['renewPeriod']);
    expect(registry.statuses.has('pendingDelete')).toBe(false);
    expect(await domain('bakery.test')).toMatchObject({ status: 'Active', expiryDate: '2028-11-21' });
    const restore = f.server.received.filter((c) => c.command === 'domain:update').at(-1)!;
    const renewal = (await h.module.services.orders.list({ domain: 'bakery.test' })).find((o) => o.action === 'renew')!;
    // The restore is a command of the renewal: its clTRID too starts with the order id.
    expect(restore.clTRID).toMatch(clTRIDFor(renewal.id));
    expect(clTRIDsOf('domain:renew').at(-1)).toMatch(clTRIDFor(renewal.id));
  });

  it('transfers a domain in: pending until the registry completes it, then reconciliation completes the order; a rejected one is refunded', async () => {
    f.server.registry.seedDomain('moving.test', {
      sponsor: 'registrar-b',
      authInfo: 'Move#Code1',
      expiresAt: new Date('2027-05-01T00:00:00Z'),
    });
    f.server.registry.seedDomain('stuck.test', { sponsor: 'registrar-b', authInfo: 'Stuck#Code1' });
    const start = await balance();
    await api.transfer({ ...order('moving.test'), eppCode: 'Move#Code1' });
    await api.transfer({ ...order('stuck.test'), eppCode: 'Stuck#Code1' });
    expect(await domain('moving.test')).toMatchObject({ status: 'Pending Transfer' });
    expect(await balance()).toBe(start - 1800);
    expect(await api.transferSync('moving.test')).toMatchObject({ completed: false, failed: false });
    expect(resultsOf(await reconcile())).toEqual({ 'moving.test': 'unresolved', 'stuck.test': 'unresolved' });

    f.server.registry.resolveTransfer('moving.test', 'clientApproved');
    f.server.registry.resolveTransfer('stuck.test', 'clientRejected');
    expect(resultsOf(await reconcile())).toEqual({ 'moving.test': 'completed', 'stuck.test': 'refunded' });
    expect(await domain('moving.test')).toMatchObject({ status: 'Active', expiryDate: '2028-05-01' });
    // A refunded order's domain stays on record as Cancelled (docs/orders.md), so sync can say so.
    expect(await domain('stuck.test')).toMatchObject({ status: 'Cancelled', expiryDate: null });
    expect(await balance()).toBe(start - 900);
    expect(f.server.registry.domains.get('moving.test')!.sponsor).toBe('registrar-a');
  });

  it('refunds what the registry refuses, and settles what it answers later or whose answer is lost', async () => {
    const start = await balance();
    // 2306: the registry's policy refuses the name; nothing was created.
    const refused = await api.register(order('policy-cafe.test')).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isResellerApiError(refused) && refused.status).toBe(502);
    expect(isResellerApiError(refused) && refused.serverMessage).toMatch(
      /^The registrar refused the registration of policy-cafe\.test: /,
    );
    // 1001: created pending at the registry; one is approved later, one rejected.
    await api.register(order('pending-one.test'));
    await api.register(order('pending-two.test'));
    // The registry creates the domain but the answer never arrives.
    f.server.inject({ command: 'domain:create', action: 'drop-after' });
    await api.register(order('lost-answer.test'));
    expect(f.server.registry.domains.has('lost-answer.test')).toBe(true);
    expect(await balance()).toBe(start - 3000);
    expect((await orderOf('lost-answer.test')).status).toBe('pending');

    f.server.registry.completePendingCreate('pending-one.test', true);
    f.server.registry.completePendingCreate('pending-two.test', false);
    expect(resultsOf(await reconcile())).toEqual({
      'pending-one.test': 'completed',
      'pending-two.test': 'refunded',
      'lost-answer.test': 'completed',
    });
    expect(await balance()).toBe(start - 2000);
    expect(await domain('lost-answer.test')).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    // The creation was sent once: nothing is resent after a lost answer.
    const lost = await orderOf('lost-answer.test');
    expect(clTRIDsOf('domain:create').filter((id) => id?.startsWith(`${lost.id}-`))).toHaveLength(1);
  });
});
