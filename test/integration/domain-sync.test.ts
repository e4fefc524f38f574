import { ulid } from 'ulid';
import { DomainSyncService } from '../../src/core/domain/domain-sync-service';
import { RegistrarGateway } from '../../src/core/registrar/registrar-gateway';
import { fixedClock } from '../../src/core/shared/clock';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { directoryOf, fakeRegistrar } from '../support/fake-registrar';
import { givenDomain, platformRecord } from '../support/domains';
import { recordingLogger } from '../support/fakes';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('DomainSyncService on a real database', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  const clock = fixedClock('2026-11-21T10:00:00Z');
  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({ database: db.url, clock, settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' } });
    await module.migrate();
    await module.services.resellers.createGroup('default');
    await module.services.catalogue.setTld({ tld: '.com', group: 'default', registrar: 'sandbox', prices: { register: '1=10.00' }, graceDays: 30, redemptionDays: 30 });
    await module.services.resellers.create('reseller@example.com', 'default', 0);
  });
  afterAll(async () => {
    await module.close();
    await db.drop();
  });

  const syncerWith = (plugin: ReturnType<typeof fakeRegistrar>) =>
    new DomainSyncService(module.container.get(TOKENS.unitOfWork), new RegistrarGateway(directoryOf(plugin), { timeoutMs: 1000 }, recordingLogger()), clock);

  it('does not overwrite a status that changed while the registrar was being asked', async () => {
    const domain = await givenDomain(module, 'raced.com', { registrar: 'fake', atRegistrar: false, expiryDate: '2027-01-01' });
    const plugin = fakeRegistrar();
    plugin.domainSync = {
      async sync() {
        // A deletion lands while the registrar answers.
        await module.container.get(TOKENS.unitOfWork).run((r) => r.domains.update(domain.id, { status: 'Cancelled' }, clock.now()));
        return { ok: true, active: true, expired: false, transferredAway: false, expiryDate: '2030-01-01' };
      },
    };
    const result = await syncerWith(plugin).syncDomain(domain);
    expect(result.changes).toEqual({});
    expect(await platformRecord(module, 'raced.com')).toMatchObject({ status: 'Cancelled', expiryDate: '2027-01-01' });
  });

  it("puts a domain the registrar reports expired into Grace within its TLD's grace days", async () => {
    const domain = await givenDomain(module, 'graceful.com', { registrar: 'fake', atRegistrar: false, expiryDate: '2026-11-01' });
    const plugin = fakeRegistrar();
    plugin.domainSync = { sync: async () => ({ ok: true, active: false, expired: true, transferredAway: false, expiryDate: '2026-11-01' }) };
    const result = await syncerWith(plugin).syncDomain(domain);
    expect(result.changes).toEqual({ status: 'Grace' });
    expect(await platformRecord(module, 'graceful.com')).toMatchObject({ status: 'Grace', updatedAt: clock.now() });
  });

  it('leaves a pending domain to its order, reporting what the registrar said', async () => {
    const domain = await givenDomain(module, 'pending.com', { registrar: 'fake', atRegistrar: false, status: 'Pending Registration', expiryDate: null });
    const result = await syncerWith(fakeRegistrar()).syncDomain(domain);
    expect(result.view).toMatchObject({ active: true, expiryDate: '2030-01-31' });
    expect(await platformRecord(module, 'pending.com')).toMatchObject({ status: 'Pending Registration', expiryDate: null });
  });

  it('lists at most listLimit changes and failures, the first by name, and counts them all', async () => {
    const names = ['list-d.com', 'list-b.com', 'list-a.com', 'list-c.com', 'list-e.com'];
    for (const name of names) await givenDomain(module, name, { registrar: 'listed', atRegistrar: false, expiryDate: '2027-01-01' });
    const plugin = fakeRegistrar({ id: 'listed' });
    plugin.domainSync = {
      sync: async ({ domain }) => domain === 'list-e.com' || domain === 'list-c.com'
        ? { ok: false, reason: 'refused', message: `${domain} is unknown here` }
        : { ok: true, active: true, expired: false, transferredAway: false, expiryDate: '2031-01-01' },
    };
    const syncer = syncerWith(plugin);
    const all = await syncer.syncAll({ concurrency: 2 });
    // The other domains of this file are at other registrars; only the listed ones concern this test.
    const mine = <T extends { domain: string }>(list: T[]) => list.filter((e) => e.domain.startsWith('list-')).map((e) => e.domain);
    expect(mine(all.changed)).toEqual(['list-a.com', 'list-b.com', 'list-d.com']);
    for (const name of names) await module.container.get(TOKENS.unitOfWork).run(async (r) => r.domains.update((await r.domains.findByName(name))!.id, { expiryDate: '2027-01-01' }, clock.now()));

    const limited = await syncer.syncAll({ concurrency: 3, listLimit: 1 });
    expect(limited.changed).toHaveLength(1);
    expect(limited.failed).toHaveLength(1);
    expect(limited.changedCount).toBe(all.changedCount);
    expect(limited.failedCount).toBe(all.failedCount);
    expect(limited.changed.map((c) => c.domain)).toEqual(['list-a.com']);
    expect(limited.failed.map((f) => f.domain)).toEqual([all.failed.map((f) => f.domain).sort()[0]]);
  });

  it('syncs every domain once across many pages, reading the next page while the last is worked on', async () => {
    const owner = await module.services.resellers.byEmail('reseller@example.com');
    const names = Array.from({ length: 450 }, (_, i) => `paged-${String(i).padStart(4, '0')}.com`);
    const at = clock.now().getTime();
    await module.knex.batchInsert('domains', names.map((name) => ({
      id: ulid(), name, unicode_name: name, tld: '.com', reseller_id: owner.id, registrar: 'paged', status: 'Active', expiry_date: '2027-01-01',
      nameservers: '[]', transfer_lock: null, dns_management: false, email_forwarding: false, id_protection: false, created_at: at, updated_at: at,
    })), 100);
    const asked: string[] = [];
    const plugin = fakeRegistrar({ id: 'paged' });
    plugin.domainSync = {
      sync: async ({ domain }) => {
        asked.push(domain);
        return { ok: true, active: true, expired: false, transferredAway: false, expiryDate: '2027-01-01' };
      },
    };
    await syncerWith(plugin).syncAll({ concurrency: 7 });
    expect(asked.filter((d) => d.startsWith('paged-')).sort()).toEqual(names);
  });
});
