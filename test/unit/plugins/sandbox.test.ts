import path from 'node:path';
import sandbox, { PREMIUM_PRICE } from '../../../plugins/sandbox';
import { guardRegistrar } from '../../../src/core/registrar/guarded-registrar';
import type { CallContext, RegisterInput, RegistrarPlugin } from '../../../src/core/registrar/plugin';
import { loadPlugins } from '../../../src/infra/plugins/plugin-loader';
import { recordingLogger, testPluginHost } from '../../support/fakes';

/** The plugin as the platform calls it, cut off at `timeoutMs`. */
const guarded = (plugin: RegistrarPlugin, timeoutMs: number) =>
  guardRegistrar({ id: plugin.id, plugin, capabilities: [] }, { timeoutMs, logger: recordingLogger() });

const ctx = (): CallContext => ({ signal: new AbortController().signal, transactionId: 't-1' });
const registration = (domain: string, period = 1): RegisterInput => ({
  domain,
  period,
  nameservers: ['ns1.example.net', 'ns2.example.net'],
  contacts: { registrant: { email: 'owner@example.com' } },
  addons: {},
  fields: {},
});

describe('sandbox registrar', () => {
  let host: ReturnType<typeof testPluginHost>;
  let plugin: RegistrarPlugin;
  beforeEach(async () => {
    host = testPluginHost();
    plugin = await sandbox.create(sandbox.parseOptions({}), host);
  });

  it('registers a free name for the period from today and then reports it registered', async () => {
    expect(await plugin.register(registration('example.com', 2), ctx())).toEqual({
      ok: true,
      expiryDate: '2028-11-21',
    });
    expect(await plugin.checkAvailability(['example.com', 'other.com'], ctx())).toEqual([
      { domain: 'example.com', status: 'registered' },
      { domain: 'other.com', status: 'available' },
    ]);
  });

  it('refuses to register a name twice', async () => {
    await plugin.register(registration('example.com'), ctx());
    expect(await plugin.register(registration('example.com'), ctx())).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
  });

  it('treats taken- names as registered elsewhere', async () => {
    expect(await plugin.checkAvailability(['taken-name.com'], ctx())).toEqual([
      { domain: 'taken-name.com', status: 'registered' },
    ]);
    expect(await plugin.register(registration('taken-name.com'), ctx())).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
  });

  it('says only "registered" of a premium- name once registered, and prices its renewal and transfer through domainPricing', async () => {
    await plugin.register(registration('premium-held.com'), ctx());
    expect(await plugin.checkAvailability(['premium-held.com'], ctx())).toEqual([
      { domain: 'premium-held.com', status: 'registered' },
    ]);
    expect(
      await plugin.domainPricing!.price({ domain: 'premium-held.com', action: 'renew', period: 2 }, ctx()),
    ).toEqual({ ok: true, isPremium: true, cost: PREMIUM_PRICE.renew * 2 });
    expect(
      await plugin.domainPricing!.price({ domain: 'premium-held.com', action: 'transfer', period: 1 }, ctx()),
    ).toEqual({ ok: true, isPremium: true, cost: PREMIUM_PRICE.transfer });
    expect(await plugin.domainPricing!.price({ domain: 'plain.com', action: 'renew', period: 1 }, ctx())).toEqual({
      ok: true,
      isPremium: false,
    });
  });

  it('offers premium- names at the premium price and registers them', async () => {
    expect(await plugin.checkAvailability(['premium-name.com'], ctx())).toEqual([
      { domain: 'premium-name.com', status: 'available', isPremium: true, premiumPrice: PREMIUM_PRICE },
    ]);
    expect(await plugin.register(registration('premium-name.com'), ctx())).toMatchObject({ ok: true });
  });

  it('refuses register, renew and transfer of fail- names with a registrar error', async () => {
    const register = await plugin.register(registration('fail-name.com'), ctx());
    const renew = await plugin.renew({ domain: 'fail-name.com', period: 1, currentExpiryDate: '2027-01-01' }, ctx());
    const transfer = await plugin.transfer!.transfer({ ...registration('fail-name.com'), eppCode: 'x' }, ctx());
    for (const outcome of [register, renew, transfer]) {
      expect(outcome).toMatchObject({
        ok: false,
        reason: 'refused',
        message: expect.stringMatching(/Sandbox registry error/),
      });
    }
  });

  it('registers slow- names but answers only after the deadline', async () => {
    await expect(guarded(plugin, 50).register(registration('slow-name.com'))).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(await plugin.checkAvailability(['slow-name.com'], ctx())).toEqual([
      { domain: 'slow-name.com', status: 'registered' },
    ]);
    expect(await plugin.domainSync!.sync({ domain: 'slow-name.com' }, ctx())).toMatchObject({
      ok: true,
      active: true,
      expiryDate: '2027-11-21',
    });
  });

  it('never registers lost- names and never answers', async () => {
    await expect(guarded(plugin, 50).register(registration('lost-name.com'))).rejects.toMatchObject({
      kind: 'timeout',
    });
    expect(await plugin.checkAvailability(['lost-name.com'], ctx())).toEqual([
      { domain: 'lost-name.com', status: 'available' },
    ]);
    expect(await plugin.domainSync!.sync({ domain: 'lost-name.com' }, ctx())).toMatchObject({
      ok: false,
      reason: 'refused',
    });
  });

  it('renews from the expiry it holds', async () => {
    await plugin.register(registration('example.com'), ctx());
    expect(await plugin.renew({ domain: 'example.com', period: 3, currentExpiryDate: null }, ctx())).toEqual({
      ok: true,
      expiryDate: '2030-11-21',
    });
  });

  it('refuses operations on a name it does not hold', async () => {
    expect(await plugin.nameservers!.get({ domain: 'nobody.com' }, ctx())).toMatchObject({
      ok: false,
      reason: 'refused',
      message: 'nobody.com is not registered at the sandbox registry',
    });
  });

  it('keeps nameservers, lock, DNS, contacts and forwards it is given', async () => {
    await plugin.register(registration('example.com'), ctx());
    const domain = 'example.com';
    await plugin.nameservers!.save({ domain, nameservers: ['ns1.other.net', 'ns2.other.net', 'ns3.other.net'] }, ctx());
    await plugin.registrarLock!.save({ domain, locked: false }, ctx());
    await plugin.dnsRecords!.save({ domain, records: [{ hostname: '@', type: 'A', address: '192.0.2.1' }] }, ctx());
    await plugin.emailForwarding!.save({ domain, forwards: [{ prefix: 'info', forwardTo: 'me@example.net' }] }, ctx());
    await plugin.contacts!.save({ domain, contacts: { admin: { firstname: 'Ada' } } }, ctx());
    expect(await plugin.nameservers!.get({ domain }, ctx())).toEqual({
      ok: true,
      nameservers: ['ns1.other.net', 'ns2.other.net', 'ns3.other.net'],
    });
    expect(await plugin.registrarLock!.get({ domain }, ctx())).toEqual({ ok: true, locked: false });
    expect(await plugin.dnsRecords!.get({ domain }, ctx())).toEqual({
      ok: true,
      records: [{ hostname: '@', type: 'A', address: '192.0.2.1', recid: '1' }],
    });
    expect(await plugin.emailForwarding!.get({ domain }, ctx())).toEqual({
      ok: true,
      forwards: [{ prefix: 'info', forwardTo: 'me@example.net' }],
    });
    expect(await plugin.contacts!.get({ domain }, ctx())).toEqual({
      ok: true,
      contacts: { registrant: { email: 'owner@example.com' }, admin: { firstname: 'Ada' } },
    });
  });

  it('manages child hosts under the domain and refuses to delete one in use', async () => {
    await plugin.register(registration('example.com'), ctx());
    const domain = 'example.com';
    expect(
      await plugin.childHosts!.register({ domain, host: 'ns1.example.com', ipAddress: '192.0.2.1' }, ctx()),
    ).toEqual({ ok: true });
    expect(
      await plugin.childHosts!.register({ domain, host: 'ns1.other.com', ipAddress: '192.0.2.1' }, ctx()),
    ).toMatchObject({ ok: false });
    expect(
      await plugin.childHosts!.modify(
        { domain, host: 'ns1.example.com', currentIpAddress: '192.0.2.9', newIpAddress: '192.0.2.2' },
        ctx(),
      ),
    ).toMatchObject({ ok: false });
    expect(
      await plugin.childHosts!.modify(
        { domain, host: 'ns1.example.com', currentIpAddress: '192.0.2.1', newIpAddress: '192.0.2.2' },
        ctx(),
      ),
    ).toEqual({ ok: true });
    await plugin.nameservers!.save({ domain, nameservers: ['ns1.example.com', 'ns2.example.net'] }, ctx());
    expect(await plugin.childHosts!.delete({ domain, host: 'ns1.example.com' }, ctx())).toMatchObject({
      ok: false,
      message: expect.stringMatching(/in use/),
    });
  });

  it('reports expiry, deletion and transfer away through domain sync', async () => {
    await plugin.register(registration('expiring.com'), ctx());
    await plugin.register(registration('deleted.com'), ctx());
    await plugin.register(registration('released.com'), ctx());
    await plugin.delete!.delete({ domain: 'deleted.com' }, ctx());
    await plugin.release!.release({ domain: 'released.com', transferTag: 'OTHER-TAG' }, ctx());
    host.clock.set('2028-01-01T00:00:00Z');
    expect(await plugin.domainSync!.sync({ domain: 'expiring.com' }, ctx())).toEqual({
      ok: true,
      active: false,
      expired: true,
      transferredAway: false,
      cancelled: false,
      expiryDate: '2027-11-21',
    });
    expect(await plugin.domainSync!.sync({ domain: 'deleted.com' }, ctx())).toMatchObject({
      ok: true,
      active: false,
      cancelled: true,
    });
    expect(await plugin.domainSync!.sync({ domain: 'released.com' }, ctx())).toMatchObject({
      ok: true,
      active: false,
      transferredAway: true,
    });
  });

  it('accepts a transfer as pending and completes it at the next transfer sync', async () => {
    const outcome = await plugin.transfer!.transfer({ ...registration('taken-name.com'), eppCode: 'secret' }, ctx());
    expect(outcome).toMatchObject({ ok: false, reason: 'pending' });
    expect(await plugin.transferSync!.sync({ domain: 'taken-name.com' }, ctx())).toEqual({
      ok: true,
      completed: true,
      failed: false,
      expiryDate: '2027-11-21',
    });
  });

  it('waits the configured latency, and gives up at the deadline', async () => {
    const slow = await sandbox.create(sandbox.parseOptions({ latencyMs: 10_000 }), host);
    await expect(guarded(slow, 30).checkAvailability(['example.com'])).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('keeps its registry in the plugin store, or with registry "memory" in the process alone', async () => {
    await plugin.register(registration('stored.com'), ctx());
    expect(await host.store.keys()).toEqual(['domain:stored.com']);

    const other = testPluginHost();
    const inMemory = await sandbox.create(sandbox.parseOptions({ registry: 'memory' }), other);
    expect(await inMemory.register(registration('kept.com'), ctx())).toMatchObject({ ok: true });
    expect(await inMemory.checkAvailability(['kept.com'], ctx())).toEqual([
      { domain: 'kept.com', status: 'registered' },
    ]);
    expect(await inMemory.register(registration('kept.com'), ctx())).toMatchObject({
      ok: false,
      reason: 'unavailable',
    });
    expect(await other.store.keys()).toEqual([]);
    // Another sandbox, as another process would make it, knows nothing of it.
    const restarted = await sandbox.create(sandbox.parseOptions({ registry: 'memory' }), other);
    expect(await restarted.checkAvailability(['kept.com'], ctx())).toEqual([
      { domain: 'kept.com', status: 'available' },
    ]);
  });

  it('refuses a registry other than "database" or "memory", also as the platform loads it', async () => {
    expect(sandbox.parseOptions({}).registry).toBe('database');
    expect(() => sandbox.parseOptions({ registry: 'redis' })).toThrow(/registry must be/);
    // Through the plugin loader, which checks options against the manifest first.
    const bundled = path.join(__dirname, '../../../plugins');
    const problemsOf = async (options: Record<string, unknown>) =>
      (await loadPlugins(bundled, { sandbox: options }, () => testPluginHost()))
        .failures()
        .filter((f) => f.id === 'sandbox')
        .map((f) => f.problem);
    expect(await problemsOf({ registry: 'memory' })).toEqual([]);
    expect(await problemsOf({ registry: 'redis' })).toEqual([expect.stringMatching(/registry must be/)]);
  });

  it('refuses a latency that is not a whole number of milliseconds', () => {
    expect(() => sandbox.parseOptions({ latencyMs: -1 })).toThrow(/latencyMs/);
    expect(() => sandbox.parseOptions({ latencyMs: 'soon' })).toThrow(/latencyMs/);
  });
});
