import type { Knex } from 'knex';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { type DatabasePools, openPools } from '../../src/infra/db/driver-pools';
import { migrateLatest } from '../../src/infra/db/migrate';
import { KnexUnitOfWork, knexLedger } from '../../src/infra/repositories/knex-unit-of-work';
import type { TransactionScope } from '../../src/core/common/unit-of-work';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/**
 * On MariaDB a deadlock rolls the whole transaction back (on Galera so does a conflict with
 * another node's commit, reported on whatever statement comes next). Work that catches that
 * error and goes on would write in a new transaction: that is how a swallowed error once committed
 * an order's debit entry without its balance update (issue 26). The unit of work never commits it:
 * it rolls back what followed and runs the whole work again.
 */
const onMariaDb = TEST_ENGINE === 'mariadb' ? it : it.skip;

describe(`a unit of work whose transaction the database ended (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    pools = openPools(db, target, { poolMax: 4 });
    await db('reseller_groups').insert([
      { id: 'ga', name: 'a', default_contact: null },
      { id: 'gb', name: 'b', default_contact: null },
    ]);
  });
  afterEach(async () => {
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  /**
   * Two units of work lock the two groups in opposite orders, so MariaDB picks one as a deadlock
   * victim; the victim's work swallows the error and renames group b. Answers how often each ran.
   */
  const deadlockOneSwallowingIt = async (uow: KnexUnitOfWork) => {
    const locked: Array<() => void> = [];
    const bothLocked = Promise.all([0, 1].map((i) => new Promise<void>((resolve) => (locked[i] = resolve))));
    const runs = [0, 0];
    const work =
      (i: number, first: string, second: string) =>
      async ({ groups }: TransactionScope) => {
        runs[i]! += 1;
        await groups.setDefaultContact(first, { by: `work ${i}` });
        locked[i]!();
        await bothLocked;
        try {
          await groups.setDefaultContact(second, { by: `work ${i}` });
        } catch {
          await groups.rename('gb', 'written-after-the-deadlock');
        }
      };
    await Promise.all([uow.run(work(0, 'ga', 'gb')), uow.run(work(1, 'gb', 'ga'))]);
    return runs;
  };

  const names = async () => (await db('reseller_groups').orderBy('id')).map((g: { name: string }) => g.name);

  onMariaDb(
    'on the driver pool: nothing written after the deadlock is committed, and the work runs again',
    async () => {
      const uow = new KnexUnitOfWork(db, knexLedger, pools);
      const runs = await deadlockOneSwallowingIt(uow);
      expect(runs.sort()).toEqual([1, 2]);
      expect(await names()).toEqual(['a', 'b']);
    },
  );

  onMariaDb('in a knex transaction (a host-owned knex): the same', async () => {
    const uow = new KnexUnitOfWork(db, knexLedger); // knex's own pool and transactions
    const runs = await deadlockOneSwallowingIt(uow);
    expect(runs.sort()).toEqual([1, 2]);
    expect(await names()).toEqual(['a', 'b']);
  });
});
