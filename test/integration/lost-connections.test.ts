import knex, { type Knex } from 'knex';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { type DatabasePools, openPools } from '../../src/infra/db/driver-pools';
import { migrateLatest } from '../../src/infra/db/migrate';
import { KnexUnitOfWork, knexLedger } from '../../src/infra/repositories/knex-unit-of-work';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/** What mysql2 throws for a statement on a connection the server closed. */
const lostConnection = () =>
  Object.assign(new Error('Connection lost: The server closed the connection.'), {
    code: 'PROTOCOL_CONNECTION_LOST',
    fatal: true,
  });

/**
 * A unit of work whose connection died before its COMMIT (issue 26 item 12): the database rolled
 * it back, so it runs again, once, on a fresh connection; a second loss, or one during the COMMIT,
 * is passed on (the HTTP adapter answers 503 with Retry-After).
 */
describe(`a unit of work that loses its connection (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;
  let uow: KnexUnitOfWork;
  const groups = async () => (await db('reseller_groups').orderBy('name')).map((g: { name: string }) => g.name);

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    pools = openPools(db, target, { poolMax: 2 });
    uow = new KnexUnitOfWork(db, knexLedger, pools);
  });
  afterEach(async () => {
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  it('runs again once when the connection died before COMMIT, keeping only the second attempt', async () => {
    let attempts = 0;
    await uow.run(async ({ groups: repo }) => {
      attempts += 1;
      await repo.insert({ id: `g${attempts}`, name: `attempt-${attempts}`, defaultContact: null });
      if (attempts === 1) throw lostConnection();
    });
    expect(attempts).toBe(2);
    expect(await groups()).toEqual(['attempt-2']);
  });

  it('passes the error on when the connection is lost a second time', async () => {
    let attempts = 0;
    await expect(
      uow.run(async () => {
        attempts += 1;
        throw lostConnection();
      }),
    ).rejects.toMatchObject({ code: 'PROTOCOL_CONNECTION_LOST' });
    expect(attempts).toBe(2);
  });

  it('never runs again work that failed for another reason', async () => {
    let attempts = 0;
    await expect(
      uow.run(async () => {
        attempts += 1;
        throw new Error('a bug');
      }),
    ).rejects.toThrow('a bug');
    expect(attempts).toBe(1);
  });

  (TEST_ENGINE === 'mariadb' ? it : it.skip)(
    'on MariaDB: a transaction whose connection is killed mid-way is run again on a fresh connection',
    async () => {
      const admin = knex({
        client: 'mysql2',
        connection: process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306',
      });
      const name = new URL(database.url).pathname.slice(1);
      try {
        let attempts = 0;
        await uow.run(async ({ groups: repo }) => {
          attempts += 1;
          await repo.insert({ id: `g${attempts}`, name: `attempt-${attempts}`, defaultContact: null });
          if (attempts === 1) {
            // The connection holding this transaction, found by its open transaction, is killed.
            const [rows] = await admin.raw(
              `SELECT t.trx_mysql_thread_id AS id FROM information_schema.innodb_trx t
                 JOIN information_schema.processlist p ON p.id = t.trx_mysql_thread_id WHERE p.db = ?`,
              [name],
            );
            expect(rows).toHaveLength(1);
            await admin.raw(`KILL ${Number((rows as Array<{ id: number }>)[0]!.id)}`);
          }
          await repo.findByName('anything');
        });
        expect(attempts).toBe(2);
        expect(await groups()).toEqual(['attempt-2']);
      } finally {
        await admin.destroy();
      }
    },
  );
});
