import path from 'node:path';
import { fixedClock } from '../../src/core/common/clock';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { syncCalls, transferSyncCalls } from '../fixtures/sync-registrars/counting';
import { givenDomain, platformRecord, givenGroupSellingCom } from '../support/domains';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';
import { pendingOrder } from '../support/orders';

const PLUGINS = path.join(__dirname, '../fixtures/sync-registrars');
const DOMAINS = 60;
const TRANSFERS = 6;

/**
 * Two modules on one database stand for two server processes: each has its own connection pool,
 * so on MariaDB their claims really race (row locks, SKIP LOCKED, conditional updates). Each test
 * starts from a database of its own with DOMAINS active domains and TRANSFERS pending transfers,
 * none synced yet, so that any one runs alone.
 */
describe(`background sync on several processes (${TEST_ENGINE})`, () => {
  let db: TestDatabase;
  let a: ResellerModule;
  let b: ResellerModule;
  let clock = fixedClock('2026-11-21T10:30:00Z');
  const open = () =>
    createResellerModule({
      database: db.url,
      clock,
      pluginsDir: PLUGINS,
      // Small batches and a few calls at once, so that the two workers take turns many times.
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', jobBatchSize: 4, jobConcurrencyPerRegistrar: 3 },
    });

  beforeEach(async () => {
    clock = fixedClock('2026-11-21T10:30:00Z');
    syncCalls.clear();
    transferSyncCalls.clear();
    db = await createTestDatabase();
    a = await open();
    await a.migrate();
    b = await open();
    await givenGroupSellingCom(a, 'default', { registrar: 'counting' });
    await a.services.resellers.create('reseller@example.com', 'default', 0);
    for (let i = 0; i < DOMAINS; i++) {
      await givenDomain(a, `bg-${String(i).padStart(3, '0')}.com`, {
        registrar: 'counting',
        atRegistrar: false,
        expiryDate: '2027-01-01',
      });
    }
    for (let i = 0; i < TRANSFERS; i++) {
      await givenDomain(a, `bg-transfer-${i}.com`, {
        registrar: 'counting',
        atRegistrar: false,
        status: 'Pending Transfer',
        expiryDate: null,
      });
    }
  });
  afterEach(async () => {
    await a?.close();
    await b?.close();
    await db?.drop();
  });

  it('syncs every due domain exactly once in a round, whichever of two concurrent workers claims it', async () => {
    const round = clock.now();
    const [fromA, fromB] = await Promise.all([
      a.runSync('domain', { syncedBefore: round }),
      b.runSync('domain', { syncedBefore: round }),
    ]);
    expect(fromA.synced + fromB.synced).toBe(DOMAINS);
    expect(fromA.failed).toEqual([]);
    expect(fromB.failed).toEqual([]);
    expect(syncCalls.size).toBe(DOMAINS);
    expect([...syncCalls.entries()].filter(([, n]) => n !== 1)).toEqual([]);
    expect(await platformRecord(a, 'bg-007.com')).toMatchObject({ status: 'Active', expiryDate: '2030-01-01' });

    // The same round again finds nothing due: every domain was stamped synced.
    const again = await Promise.all([
      a.runSync('domain', { syncedBefore: round }),
      b.runSync('domain', { syncedBefore: round }),
    ]);
    expect(again.map((r) => r.synced)).toEqual([0, 0]);
    expect([...syncCalls.values()].every((n) => n === 1)).toBe(true);
  });

  it('follows pending transfers once each, and the job runs through the scheduler with its interval', async () => {
    const counts = await Promise.all([a.jobs.runOnce('transfer-sync'), b.jobs.runOnce('transfer-sync')]);
    expect(counts.reduce((n, c) => n + (c.synced ?? 0), 0)).toBe(6);
    expect(counts.reduce((n, c) => n + (c.changed ?? 0), 0)).toBe(6);
    expect([...transferSyncCalls.values()]).toEqual([1, 1, 1, 1, 1, 1]);
    expect(await platformRecord(a, 'bg-transfer-3.com')).toMatchObject({ status: 'Active', expiryDate: '2029-06-30' });
  });

  it("leaves a domain with an order in progress to that order's reconciliation", async () => {
    const domain = await givenDomain(a, 'bg-ordered.com', {
      registrar: 'counting',
      atRegistrar: false,
      status: 'Pending Transfer',
      expiryDate: null,
    });
    const reseller = await a.services.resellers.byEmail('reseller@example.com');
    const now = clock.now();
    await a.container.get(TOKENS.unitOfWork).run((repos) =>
      repos.orders.insert(
        pendingOrder(
          {
            id: '01JORDERINPROGRESS00000000',
            resellerId: reseller.id,
            action: 'transfer',
            domainId: domain.id,
            domain: domain.name,
            registrar: 'counting',
            price: 0,
          },
          now,
        ),
      ),
    );
    await a.runSync('transfer', { syncedBefore: now });
    expect(transferSyncCalls.has('bg-ordered.com')).toBe(false);
    expect(await platformRecord(a, 'bg-ordered.com')).toMatchObject({ status: 'Pending Transfer' });
    // Settled, the order lets go of the domain.
    await a.container
      .get(TOKENS.unitOfWork)
      .run((repos) => repos.orders.settle('01JORDERINPROGRESS00000000', 'failed', { note: 'test', at: now }));
    transferSyncCalls.clear();
    await a.runSync('transfer', { syncedBefore: now });
    expect(transferSyncCalls.get('bg-ordered.com')).toBe(1);
  });

  it('makes a domain due again after DOMAIN_SYNC_INTERVAL_SECONDS, not before', async () => {
    expect(await a.jobs.runOnce('domain-sync')).toEqual({ synced: DOMAINS, changed: DOMAINS, failed: 0 });
    expect(await a.jobs.runOnce('domain-sync')).toEqual({ synced: 0, changed: 0, failed: 0 });
    clock.advance(a.settings.domainSyncIntervalSeconds * 1000 + 1);
    syncCalls.clear();
    const counts = await Promise.all([a.jobs.runOnce('domain-sync'), b.jobs.runOnce('domain-sync')]);
    expect(counts[0]!.synced! + counts[1]!.synced!).toBe(DOMAINS);
    expect([...syncCalls.values()].every((n) => n === 1)).toBe(true);
  });

  it('leaves a domain claimed by a live worker alone, and takes it back once that lease runs out', async () => {
    const domains = a.container.get(TOKENS.unitOfWork).read.domains;
    const now = clock.now();
    const claimed = await domains.claimForSync({
      statuses: ['Active'],
      syncedBefore: now,
      now,
      leaseUntil: new Date(now.getTime() + 60_000),
      owner: 'dead-worker',
      limit: 5,
    });
    expect(claimed).toHaveLength(5);
    const report = await b.runSync('domain', { syncedBefore: now });
    expect(report.synced).toBe(DOMAINS - 5);
    expect(claimed.every((d) => !syncCalls.has(d.name))).toBe(true);
    clock.advance(60_001);
    expect((await b.runSync('domain', { syncedBefore: now })).synced).toBe(5);
  });

  it('gives claimed domains back untouched when the process stops mid-round', async () => {
    const stop = new AbortController();
    let seen = 0;
    const report = await a.runSync('domain', {
      onProgress: () => {
        if (++seen === 2) stop.abort();
      },
      signal: stop.signal,
    });
    expect(report.synced).toBeLessThan(DOMAINS);
    // Nothing stays leased: another process takes the rest at once.
    const rest = await b.runSync('domain');
    expect(report.synced + rest.synced).toBe(DOMAINS);
    expect([...syncCalls.values()].every((n) => n === 1)).toBe(true);
  });
});
