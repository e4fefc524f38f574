import { ulid } from 'ulid';
import { DomainSyncService } from '../../src/core/domain/domain-sync-service';
import { RegistrarGateway } from '../../src/core/registrar/registrar-gateway';
import { guardRegistrars } from '../../src/core/registrar/guarded-registrar';
import { fixedClock } from '../../src/core/common/clock';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { directoryOf, cannedRegistrar } from '../support/canned-registrar';
import { givenDomain, platformRecord, givenGroupSellingCom } from '../support/domains';
import { recordingLogger } from '../support/fakes';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('DomainSyncService on a real database', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  const clock = fixedClock('2026-11-21T10:00:00Z');
  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({
      database: db.url,
      clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    await module.migrate();
    await givenGroupSellingCom(module, 'default', { graceDays: 30, redemptionDays: 30 });
    await module.services.resellers.create('reseller@example.com', 'default', 0);
  });
  afterAll(async () => {
    await module.close();
    await db.drop();
  });

  const syncerWith = (plugin: ReturnType<typeof cannedRegistrar>) =>
    new DomainSyncService(
      module.container.get(TOKENS.unitOfWork),
      new RegistrarGateway(
        guardRegistrars(directoryOf(plugin), { timeoutMs: 1000, logger: recordingLogger() }),
        recordingLogger(),
      ),
      clock,
      module.services.orders,
    );

  it('does not overwrite a status that changed while the registrar was being asked', async () => {
    const domain = await givenDomain(module, 'raced.com', {
      registrar: 'fake',
      atRegistrar: false,
      expiryDate: '2027-01-01',
    });
    const plugin = cannedRegistrar();
    plugin.domainSync = {
      async sync() {
        // A deletion lands while the registrar answers.
        await module.container
          .get(TOKENS.unitOfWork)
          .run((r) => r.domains.update(domain.id, { status: 'Cancelled' }, clock.now()));
        return { ok: true, active: true, expired: false, transferredAway: false, expiryDate: '2030-01-01' };
      },
    };
    const result = await syncerWith(plugin).syncDomain(domain);
    expect(result.changes).toEqual({});
    expect(await platformRecord(module, 'raced.com')).toMatchObject({ status: 'Cancelled', expiryDate: '2027-01-01' });
  });

  it("puts a domain the registrar reports expired into Grace within its TLD's grace days", async () => {
    const domain = await givenDomain(module, 'graceful.com', {
      registrar: 'fake',
      atRegistrar: false,
      expiryDate: '2026-11-01',
    });
    const plugin = cannedRegistrar();
    plugin.domainSync = {
      sync: async () => ({ ok: true, active: false, expired: true, transferredAway: false, expiryDate: '2026-11-01' }),
    };
    const result = await syncerWith(plugin).syncDomain(domain);
    expect(result.changes).toEqual({ status: 'Grace' });
    expect(await platformRecord(module, 'graceful.com')).toMatchObject({ status: 'Grace', updatedAt: clock.now() });
  });

  it('leaves a pending domain to its order, reporting what the registrar said', async () => {
    const domain = await givenDomain(module, 'pending.com', {
      registrar: 'fake',
      atRegistrar: false,
      status: 'Pending Registration',
      expiryDate: null,
    });
    const result = await syncerWith(cannedRegistrar()).syncDomain(domain);
    expect(result.view).toMatchObject({ active: true, expiryDate: '2030-01-31' });
    expect(await platformRecord(module, 'pending.com')).toMatchObject({
      status: 'Pending Registration',
      expiryDate: null,
    });
  });

  describe('a round over many domains', () => {
    const owner = 'test-round';
    const round = (
      plugin: ReturnType<typeof cannedRegistrar>,
      extra: { listLimit?: number; batchSize?: number } = {},
    ) =>
      syncerWith(plugin).syncDue({
        kind: 'domain',
        syncedBefore: clock.now(),
        owner,
        concurrencyPerRegistrar: 7,
        batchSize: extra.batchSize ?? 25,
        leaseMs: 60_000,
        ...extra,
      });

    it('syncs every due domain once across many claims, claiming the next batch while one is worked on, and lists at most listLimit changes and failures by name with every one counted', async () => {
      const reseller = await module.services.resellers.byEmail('reseller@example.com');
      const names = Array.from({ length: 120 }, (_, i) => `round-${String(i).padStart(4, '0')}.com`);
      const at = clock.now().getTime();
      await module.knex.batchInsert(
        'domains',
        names.map((name, i) => ({
          id: ulid(),
          name,
          unicode_name: name,
          tld: '.com',
          reseller_id: reseller.id,
          registrar: 'rounds',
          status: i % 3 === 0 ? 'Grace' : 'Active',
          expiry_date: '2027-01-01',
          nameservers: '[]',
          transfer_lock: null,
          dns_management: false,
          email_forwarding: false,
          id_protection: false,
          created_at: at,
          updated_at: at,
        })),
        50,
      );
      // The other tests' domains are not part of this round.
      await module.knex('domains').whereNot('name', 'like', 'round-%').update({ synced_at: clock.now().getTime() });
      const asked: string[] = [];
      const plugin = cannedRegistrar({ id: 'rounds' });
      plugin.domainSync = {
        sync: async ({ domain }) => {
          asked.push(domain);
          // Every fifth domain is unknown to the registrar; the others renewed there.
          return domain.endsWith('5.com') || domain.endsWith('0.com')
            ? { ok: false, reason: 'refused', message: `${domain} is not here` }
            : { ok: true, active: true, expired: false, transferredAway: false, expiryDate: '2031-01-01' };
        },
      };
      const report = await round(plugin, { listLimit: 3 });
      const mine = asked.filter((d) => d.startsWith('round-'));
      expect(mine.sort()).toEqual(names);
      expect(report.failedCount).toBe(24);
      expect(report.failed.map((f) => f.domain)).toEqual(['round-0000.com', 'round-0005.com', 'round-0010.com']);
      expect(report.changedCount).toBe(96);
      expect(report.changed.map((c) => c.domain)).toEqual(['round-0001.com', 'round-0002.com', 'round-0003.com']);
      // Nothing left claimed, and nothing left due in this round.
      expect(
        await module
          .knex('domains')
          .where('name', 'like', 'round-%')
          .whereNotNull('sync_owner')
          .count({ n: '*' })
          .first(),
      ).toMatchObject({ n: 0 });
      expect((await round(plugin)).synced).toBe(0);
    });
  });
});
