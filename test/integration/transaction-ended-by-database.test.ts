import type { Knex } from 'knex';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { type DatabasePools, knexPools, openPools, type Transactions } from '../../src/infra/db/driver-pools';
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

  /**
   * Another transaction holds group b; the work renames group a, waits for b until its lock wait
   * times out (1 s here, 50 s by default), swallows that error and renames a again. The statement
   * that timed out did not happen (with innodb_rollback_on_timeout=ON nor did the rest): committing
   * what is left would be a change the work never meant. Issue 26: a renewal race on Galera once
   * waited this long.
   */
  const lockWaitSwallowed = async (transactions: Transactions) => {
    const holder = await db.transaction();
    try {
      await holder('reseller_groups').where({ id: 'gb' }).update({ name: 'held' });
      let runs = 0;
      const outcome = transactions
        .run(async (trx) => {
          runs += 1;
          await trx.raw('SET SESSION innodb_lock_wait_timeout = 1');
          await trx('reseller_groups').where({ id: 'ga' }).update({ name: 'written-before-the-wait' });
          try {
            await trx('reseller_groups').where({ id: 'gb' }).update({ name: 'waited' });
          } catch {
            await trx('reseller_groups').where({ id: 'ga' }).update({ name: 'written-after-the-wait' });
          }
        })
        .then(
          () => 'committed',
          (error: { errno?: number }) => `failed with ${error.errno}`,
        );
      return { outcome: await outcome, runs };
    } finally {
      await holder.rollback();
    }
  };

  onMariaDb('on the driver pool: a lock wait timeout the work swallowed commits nothing', async () => {
    expect(await lockWaitSwallowed(pools.transactions)).toEqual({ outcome: 'failed with 1205', runs: 1 });
    expect(await names()).toEqual(['a', 'b']);
  });

  onMariaDb('in a knex transaction (a host-owned knex): the same', async () => {
    expect(await lockWaitSwallowed(knexPools(db).transactions)).toEqual({ outcome: 'failed with 1205', runs: 1 });
    expect(await names()).toEqual(['a', 'b']);
  });

  onMariaDb('in a knex transaction (a host-owned knex): a deadlock the work swallowed: the same', async () => {
    const uow = new KnexUnitOfWork(db, knexLedger); // knex's own pool and transactions
    const runs = await deadlockOneSwallowingIt(uow);
    expect(runs.sort()).toEqual([1, 2]);
    expect(await names()).toEqual(['a', 'b']);
  });
});
