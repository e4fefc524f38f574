import { ulid } from 'ulid';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { migrateLatest } from '../../src/infra/db/migrate';
import { createTestDatabase, type TestDatabase } from '../support/test-database';
import { startHarness, type Harness } from '../support/harness';

describe('migrations', () => {
  let db: TestDatabase;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('are safe to run from several processes at once and on every start', async () => {
    const connections = [0, 1, 2].map(() => connectDatabase(parseDatabaseUrl(db.url)));
    try {
      const applied = await Promise.all(
        connections.map((knex) => migrateLatest(knex, { waitMs: 50, timeoutMs: 120_000 })),
      );
      expect(applied.flat().filter((name) => name.includes('create_resellers'))).toHaveLength(1);
      expect(await migrateLatest(connections[0])).toEqual([]);
    } finally {
      await Promise.all(connections.map((knex) => knex.destroy()));
    }
    // As long as migrateLatest may wait: on MariaDB, DDL under a full parallel test run can take a while.
  }, 120_000);

  it('mends a doubled lock row, which two processes creating the bookkeeping tables at once can leave', async () => {
    const knex = connectDatabase(parseDatabaseUrl(db.url));
    try {
      await migrateLatest(knex);
      await knex('knex_migrations_lock').insert({ is_locked: 0 });
      // Without the mend, knex's lock (exactly one row expected) would fail here until the timeout.
      await expect(migrateLatest(knex, { waitMs: 10, timeoutMs: 5_000 })).resolves.toEqual([]);
      expect(await knex('knex_migrations_lock').count({ n: '*' }).first()).toEqual({ n: 1 });
    } finally {
      await knex.destroy();
    }
  });
});

describe('the credit ledger', () => {
  let h: Harness;
  let resellerId: string;
  beforeAll(async () => {
    h = await startHarness();
    resellerId = (await h.module.services.resellers.byEmail(h.reseller.email)).id;
  });
  afterAll(async () => {
    await h.close();
  });

  afterEach(async () => {
    const check = await h.module.services.credit.verify(resellerId);
    expect(check.consistent).toBe(true);
  });

  it('adds top-ups and adjustments as entries and keeps the balance equal to their sum', async () => {
    await h.module.services.credit.adjust(resellerId, 2_550, 'wire transfer');
    await h.module.services.credit.adjust(resellerId, -550, 'correction');
    expect(await h.module.services.credit.balance(resellerId)).toBe(12_000);
    const entries = await h.module.services.credit.entries(resellerId);
    expect(entries.map((e) => e.kind)).toEqual(expect.arrayContaining(['top_up', 'adjustment']));
  });

  it('refuses an adjustment that would go below zero, writing nothing', async () => {
    const before = await h.module.services.credit.entries(resellerId);
    await expect(h.module.services.credit.adjust(resellerId, -1_000_000, null)).rejects.toMatchObject({
      code: 'insufficient_credit',
    });
    expect(await h.module.services.credit.entries(resellerId)).toHaveLength(before.length);
  });

  it('never overdraws under concurrent debits: 30 debits of 10.00 against 90.00 leave exactly 9 posted', async () => {
    const { resellers, credit } = h.module.services;
    const { reseller } = await resellers.create(`race-${ulid().toLowerCase()}@example.com`, 'default', 9_000);
    const results = await Promise.allSettled(
      Array.from({ length: 30 }, () => credit.adjust(reseller.id, -1_000, 'race')),
    );
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(9);
    expect(
      results
        .filter((r) => r.status === 'rejected')
        .every((r) => (r as PromiseRejectedResult).reason.code === 'insufficient_credit'),
    ).toBe(true);
    expect(await credit.verify(reseller.id)).toEqual({ balance: 0, sumOfEntries: 0, consistent: true });
  });
});
