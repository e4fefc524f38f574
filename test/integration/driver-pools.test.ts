import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { type DatabasePools, type HotReads, knexHotReads, knexPools, openPools } from '../../src/infra/db/driver-pools';
import { databaseAnswers } from '../../src/infra/db/readiness';
import { isUniqueViolation } from '../../src/infra/db/errors';
import type { LedgerFactory } from '../../src/core/credit/ledger';
import { migrateLatest } from '../../src/infra/db/migrate';
import { KnexUnitOfWork, knexLedger } from '../../src/infra/repositories/knex-unit-of-work';
import { deferred } from '../support/fakes';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/**
 * The hot-path reads on a connection of their own (src/infra/db/driver-pools.ts, ADR 12) see
 * what is committed and nothing else, on the run's engine: SQLite's query-only connection of the
 * file, or the MariaDB pool of its own.
 */
describe(`hot-path reads (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;
  const status = async (on: HotReads = pools.reads) =>
    (await on.first<{ status: string }>('SELECT status FROM accounts WHERE id = ?', ['a']))?.status;

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await db.schema.createTable('accounts', (t) => {
      t.string('id').primary();
      t.string('status');
    });
    await db('accounts').insert({ id: 'a', status: 'active' });
    pools = openPools(db, target, { poolMax: 4 });
  });
  afterEach(async () => {
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  it('see a committed change at once (a suspension applies to the next request)', async () => {
    expect(await status()).toBe('active');
    await db('accounts').where({ id: 'a' }).update({ status: 'suspended' });
    expect(await status()).toBe('suspended');
  });

  it('do not see the uncommitted writes of a transaction in progress, and see them once it commits', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => {
      written = resolve;
    });
    const transaction = db.transaction(async (trx) => {
      await trx('accounts').where({ id: 'a' }).update({ status: 'suspended' });
      written();
      await held;
    });
    await wrote;
    expect(await status()).toBe('active');
    release();
    await transaction;
    expect(await status()).toBe('suspended');
  });

  it('never see a rolled-back write; a read made on the transaction sees its own write', async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('accounts').where({ id: 'a' }).update({ status: 'gone' });
        expect(await status(knexHotReads(trx))).toBe('gone');
        expect(await status()).toBe('active');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await status()).toBe('active');
  });

  it('answer undefined for no row and pass a database error on without its values', async () => {
    expect(await pools.reads.first('SELECT status FROM accounts WHERE id = ?', ['nobody'])).toBeUndefined();
    // Matched by message: the drivers' error classes come from another realm under jest's workers.
    const failed = await pools.reads.first('SELECT status FROM no_such_table WHERE id = ?', ['secret-value']).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(failed).toMatchObject({ message: expect.stringMatching(/no_such_table/) });
    expect(JSON.stringify(failed)).not.toContain('secret-value');
    expect(await status()).toBe('active');
  });

  it('keep answering under many concurrent reads and writes', async () => {
    const writes = Array.from({ length: 20 }, (_, i) =>
      db('accounts')
        .where({ id: 'a' })
        .update({ status: `s${i}` }),
    );
    const reads = Array.from({ length: 100 }, () => status());
    const seen = await Promise.all(reads);
    await Promise.all(writes);
    for (const value of seen) expect(value).toMatch(/^(active|s\d+)$/);
  });

  it("write each statement committed at once (on MySQL/MariaDB through the reads' pool)", async () => {
    const { writes } = pools;
    await writes.write('INSERT INTO accounts (id, status) VALUES (?, ?), (?, ?)', ['b', 'new', 'c', 'new']);
    expect(await db('accounts').whereIn('id', ['b', 'c']).orderBy('id').pluck('status')).toEqual(['new', 'new']);
    await expect(writes.write('INSERT INTO no_such_table (id) VALUES (?)', ['d'])).rejects.toMatchObject({
      message: expect.stringMatching(/no_such_table/),
    });
  });

  it('refuse to read once closed', async () => {
    const other = openPools(db, parseDatabaseUrl(database.url));
    expect(await status(other.reads)).toBe('active');
    await other.close();
    await expect(status(other.reads)).rejects.toThrow(/closed/i);
  });
});

/**
 * Authentication's one statement (ADR 12): the reseller with its balance, read outside any
 * transaction through the hot-path reader, and inside a unit of work through the transaction.
 */
describe(`the sign-in read of the reseller repository (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;
  let uow: KnexUnitOfWork;
  const EMAIL = 'signin@example.com';

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    pools = openPools(db, target, { poolMax: 4 });
    uow = new KnexUnitOfWork(db, knexLedger, pools);
    await db('reseller_groups').insert({ id: 'g1', name: 'default' });
    await db('resellers').insert({
      id: 'r1',
      email: EMAIL,
      group_id: 'g1',
      status: 'active',
      sealed_api_key: 'sealed',
      created_at: 0,
    });
  });
  afterEach(async () => {
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  it('reads a reseller without a credit account with a balance of 0, and its balance once it has one', async () => {
    expect(await uow.read.resellers.findByEmail(EMAIL)).toMatchObject({ id: 'r1', ledgerBalance: 0 });
    await db('credit_accounts').insert({ reseller_id: 'r1', balance_minor: 12_345 });
    expect(await uow.read.resellers.findByEmail(EMAIL)).toMatchObject({ id: 'r1', ledgerBalance: 12_345 });
    expect(await uow.read.resellers.findByEmail('nobody@example.com')).toBeUndefined();
  });

  it('sees a suspension and a debit committed by anyone on the next read', async () => {
    await db('credit_accounts').insert({ reseller_id: 'r1', balance_minor: 500 });
    expect(await uow.read.resellers.findByEmail(EMAIL)).toMatchObject({ status: 'active', ledgerBalance: 500 });
    await db('resellers').where({ id: 'r1' }).update({ status: 'suspended' });
    await db('credit_accounts').where({ reseller_id: 'r1' }).update({ balance_minor: 200 });
    expect(await uow.read.resellers.findByEmail(EMAIL)).toMatchObject({ status: 'suspended', ledgerBalance: 200 });
  });

  it('inside a unit of work reads its own writes, which no one else sees before the commit', async () => {
    await db('credit_accounts').insert({ reseller_id: 'r1', balance_minor: 500 });
    await uow.run(async (repos) => {
      await repos.resellers.setStatus('r1', 'suspended');
      expect(await repos.resellers.findByEmail(EMAIL)).toMatchObject({ status: 'suspended' });
      expect(await uow.read.resellers.findByEmail(EMAIL)).toMatchObject({ status: 'active' });
    });
    expect(await uow.read.resellers.findByEmail(EMAIL)).toMatchObject({ status: 'suspended' });
  });
});

/**
 * On MySQL/MariaDB opened by the module, a unit of work is a transaction on a connection of the
 * driver's own pool, its statements built by knex bound to that connection (src/infra/db/db.ts).
 */
(TEST_ENGINE === 'mariadb' ? describe : describe.skip)('units of work on the driver pool (mariadb)', () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;
  let uow: KnexUnitOfWork;
  const statements: string[] = [];
  const record = (query: { sql: string }) => statements.push(query.sql);
  const statusOf = async (id: string) => (await db('resellers').where({ id }).first('status'))?.status as string;

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    pools = openPools(db, target, { poolMax: 2 });
    uow = new KnexUnitOfWork(db, knexLedger, pools);
    await db('reseller_groups').insert({ id: 'g1', name: 'default' });
    for (const id of ['r1', 'r2'])
      await db('resellers').insert({
        id,
        email: `${id}@example.com`,
        group_id: 'g1',
        status: 'active',
        sealed_api_key: 'sealed',
        created_at: 0,
      });
    statements.length = 0;
    db.on('query', record);
  });
  afterEach(async () => {
    db.off('query', record);
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  it('commits all of the work with a COMMIT that knex reports like its own, sending no BEGIN', async () => {
    const work = () =>
      uow.run(async (repos) => {
        await repos.resellers.setStatus('r1', 'suspended');
        await repos.resellers.setStatus('r2', 'suspended');
      });
    const verbs = () => statements.splice(0).map((sql) => sql.split(' ').slice(0, 2).join(' ').toLowerCase());
    await work();
    // A connection the pool has just opened is put in manual-commit mode first, once.
    expect(verbs()).toEqual(['set autocommit', 'update `resellers`', 'update `resellers`', 'commit']);
    await work();
    expect(verbs()).toEqual(['update `resellers`', 'update `resellers`', 'commit']);
    expect([await statusOf('r1'), await statusOf('r2')]).toEqual(['suspended', 'suspended']);
  });

  it("sends the outbox's INSERT, the transaction's last statement, in one round trip with its COMMIT", async () => {
    const publish = () =>
      uow.run(async (repos) => {
        await repos.resellers.setStatus('r1', 'suspended');
        repos.outbox.push({
          name: 'credit.low',
          event: { resellerId: 'r1', balance: 0, threshold: 100, at: new Date() },
        });
      });
    await publish();
    statements.length = 0;
    await publish();
    expect(statements).toHaveLength(2);
    expect(statements[0]).toMatch(/^update `resellers`/);
    expect(statements[1]).toMatch(/^insert into `outbox_events` .*;\s*COMMIT$/s);
    expect(await db('outbox_events').count({ n: '*' })).toEqual([{ n: 2 }]);
  });

  it('keeps its writes from everyone else until it commits, on every connection of its pool', async () => {
    // More at once than the pool's two connections: each of them, the new ones too, holds its writes back.
    const seenOutside: string[] = [];
    await Promise.all(
      ['r1', 'r2', 'r1', 'r2'].map((id) =>
        uow.run(async (repos) => {
          await repos.resellers.setStatus(id, 'suspended');
          seenOutside.push(await statusOf(id));
          await repos.resellers.setStatus(id, 'active');
        }),
      ),
    );
    expect(seenOutside).toEqual(['active', 'active', 'active', 'active']);
  });

  it('writes nothing when the work throws, and passes its error on', async () => {
    await expect(
      uow.run(async (repos) => {
        await repos.resellers.setStatus('r1', 'suspended');
        throw new Error('changed my mind');
      }),
    ).rejects.toThrow('changed my mind');
    expect(statements.at(-1)).toMatch(/^rollback/i);
    expect(await statusOf('r1')).toBe('active');
  });

  it('holds its row locks until it ends: a concurrent transaction on the same row waits and then sees the commit', async () => {
    const held = deferred();
    const locked = deferred();
    const first = uow.run(async (repos) => {
      await repos.resellers.setStatus('r1', 'suspended');
      locked.resolve();
      await held.promise;
    });
    await locked.promise;
    let secondSaw: string | undefined;
    const second = uow.run(async (repos) => {
      await repos.resellers.setStatus('r1', 'active');
      secondSaw = (await repos.resellers.findById('r1'))?.status;
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(secondSaw).toBeUndefined();
    expect(await statusOf('r1')).toBe('active');
    held.resolve();
    await Promise.all([first, second]);
    expect(secondSaw).toBe('active');
    expect(await statusOf('r1')).toBe('active');
  });

  it('gives every connection back: more units of work than the pool has connections, failing ones too, all finish', async () => {
    const runs = Array.from({ length: 12 }, (_, i) =>
      uow.run(async (repos) => {
        await repos.resellers.setStatus(i % 2 ? 'r1' : 'r2', i % 3 ? 'active' : 'suspended');
        if (i % 4 === 0) throw new Error(`run ${i} fails`);
        return i;
      }),
    );
    const settled = await Promise.allSettled(runs);
    expect(settled.filter((r) => r.status === 'rejected')).toHaveLength(3);
    await expect(uow.run(async () => 'still served')).resolves.toBe('still served');
  });

  it('writes nothing when its connection is lost mid-transaction, and later units of work get live connections', async () => {
    await expect(
      pools.transactions.run(async (trx) => {
        await trx('resellers').where({ id: 'r1' }).update({ status: 'suspended' });
        const [[{ id }]] = (await trx.raw('select connection_id() as id')) as [[{ id: number }]];
        // Killed from another session, as a failing network or a restarted server would.
        await db.raw(`kill ${Number(id)}`);
        await trx('resellers').where({ id: 'r2' }).update({ status: 'suspended' });
      }),
    ).rejects.toThrow();
    expect([await statusOf('r1'), await statusOf('r2')]).toEqual(['active', 'active']);
    // More than the pool's two connections, one after the other: none is the dead one, and the one
    // opened in its place is in manual-commit mode too (nothing is seen before the commit).
    for (let i = 0; i < 3; i++)
      await uow.run(async (repos) => {
        await repos.resellers.setStatus('r1', i % 2 ? 'active' : 'suspended');
        expect(await statusOf('r1')).toBe(i % 2 ? 'suspended' : 'active');
      });
    expect(await statusOf('r1')).toBe('suspended');
  });

  it("runs a deadlock's victim again: two units of work locking two rows in opposite orders both finish", async () => {
    let attempts = 0;
    let arrived = 0;
    const bothLocked = deferred();
    const lockBoth = (first: string, second: string, status: 'active' | 'suspended') =>
      uow.run(async (repos) => {
        attempts++;
        await repos.resellers.setStatus(first, status);
        // Only the first attempts wait for each other; a retried one goes straight through.
        if (attempts <= 2) {
          if (++arrived === 2) bothLocked.resolve();
          await bothLocked.promise;
        }
        await repos.resellers.setStatus(second, status);
      });
    await Promise.all([lockBoth('r1', 'r2', 'suspended'), lockBoth('r2', 'r1', 'suspended')]);
    expect(attempts).toBe(3);
    expect([await statusOf('r1'), await statusOf('r2')]).toEqual(['suspended', 'suspended']);
  });

  it('is not used for a ledger the host supplies, which is promised the knex transaction', async () => {
    const given: unknown[] = [];
    const hostLedger: LedgerFactory = (connection) => {
      given.push(connection);
      return knexLedger(connection);
    };
    const forHostLedger = openPools(db, parseDatabaseUrl(database.url), { poolMax: 2, ownsLedger: false });
    try {
      const withHostLedger = new KnexUnitOfWork(db, hostLedger, forHostLedger);
      await withHostLedger.run(async (repos) => repos.resellers.setStatus('r1', 'suspended'));
      expect((given.at(-1) as Knex.Transaction).isTransaction).toBe(true);
      // The module's own ledger on the same database is given a connection of the driver's pool.
      await new KnexUnitOfWork(db, hostLedger, pools).run(async (repos) => repos.resellers.setStatus('r1', 'active'));
      expect((given.at(-1) as { isTransaction?: boolean }).isTransaction).toBeUndefined();
    } finally {
      await forHostLedger.close();
    }
  });
});

/**
 * A transaction's last statement (the outbox's INSERT): sent with the COMMIT on MySQL/MariaDB's
 * transaction pool, run just before it on knex's transactions; a failure of it commits nothing.
 */
describe(`a transaction's last statement (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;
  const statusOf = async (id: string) => (await db('resellers').where({ id }).first('status'))?.status as string;

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    pools = openPools(db, target, { poolMax: 1 });
    await db('reseller_groups').insert({ id: 'g1', name: 'default' });
    for (const id of ['r1', 'r2'])
      await db('resellers').insert({
        id,
        email: `${id}@example.com`,
        group_id: 'g1',
        status: 'active',
        sealed_api_key: 'sealed',
        created_at: 0,
      });
  });
  afterEach(async () => {
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  it('is committed with the work, after it', async () => {
    const order: string[] = [];
    const result = await pools.transactions.run(
      async (trx) => {
        await trx('resellers').where({ id: 'r1' }).update({ status: 'suspended' });
        order.push('work');
        return 'done';
      },
      (trx) => {
        order.push('last');
        return trx('resellers').where({ id: 'r2' }).update({ status: 'suspended' });
      },
    );
    expect(result).toBe('done');
    expect(order).toEqual(['work', 'last']);
    expect([await statusOf('r1'), await statusOf('r2')]).toEqual(['suspended', 'suspended']);
  });

  it('rolls the whole transaction back when it fails, and the connection serves the next one', async () => {
    const failed = await pools.transactions
      .run(
        async (trx) => {
          await trx('resellers').where({ id: 'r1' }).update({ status: 'suspended' });
        },
        // The group's primary key is taken: the statement fails, and nothing may be committed.
        (trx) => trx('reseller_groups').insert({ id: 'g1', name: 'again' }),
      )
      .then(
        () => undefined,
        (error: unknown) => error,
      );
    expect(isUniqueViolation(failed)).toBe(true);
    expect(await statusOf('r1')).toBe('active');
    // The pool's one connection, after the failure: not left in a transaction, nor committing on its own.
    await pools.transactions.run(async (trx) => {
      await trx('resellers').where({ id: 'r2' }).update({ status: 'suspended' });
      // Read on a connection of its own (knex's one SQLite connection is the transaction's).
      expect(await pools.reads.first('SELECT status FROM resellers WHERE id = ?', ['r2'])).toEqual({
        status: 'active',
      });
    });
    expect([await statusOf('r1'), await statusOf('r2')]).toEqual(['active', 'suspended']);
  });

  it('is not asked for when the work throws', async () => {
    let asked = false;
    await expect(
      pools.transactions.run(
        async () => {
          throw new Error('changed my mind');
        },
        (trx) => {
          asked = true;
          return trx('resellers').where({ id: 'r2' }).update({ status: 'suspended' });
        },
      ),
    ).rejects.toThrow('changed my mind');
    expect(asked).toBe(false);
    expect(await statusOf('r2')).toBe('active');
  });
});

/** /readyz's database check asks every way the module reaches the database, the driver's own connections too. */
describe(`the readiness check of the database (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  beforeEach(async () => {
    database = await createTestDatabase();
    db = connectDatabase(parseDatabaseUrl(database.url));
  });
  afterEach(async () => {
    await db.destroy();
    await database.drop();
  });

  it("answers ok while knex and the driver's own connection both answer", async () => {
    const pools = openPools(db, parseDatabaseUrl(database.url));
    try {
      expect(await pools.check()).toBe('ok');
      expect(await knexPools(db).check()).toBe('ok');
    } finally {
      await pools.close();
    }
  });

  it("says why when the driver's own connection fails, though knex still answers", async () => {
    const pools = openPools(db, parseDatabaseUrl(database.url));
    await pools.close();
    expect(await pools.check()).toMatch(/^unreachable \(.*closed/i);
  });

  (TEST_ENGINE === 'mariadb' ? it : it.skip)(
    'says so when no transaction can be run, though knex and the sign-in connections answer (mariadb)',
    async () => {
      const pools = openPools(db, parseDatabaseUrl(database.url), { poolMax: 1 });
      const release = deferred();
      // The transaction pool's one connection held by work that has not ended.
      const holding = pools.transactions.run(() => release.promise);
      try {
        expect(await pools.reads.first('select 1 as ok', [])).toEqual({ ok: 1 });
        expect(await pools.check()).toBe('unreachable (no answer within 2 s)');
        release.resolve();
        await holding;
        expect(await pools.check()).toBe('ok');
      } finally {
        release.resolve();
        await holding;
        await pools.close();
      }
    },
  );

  it('says so when a reader does not answer within two seconds', async () => {
    const silent = () => new Promise(() => undefined);
    expect(await databaseAnswers([() => db.raw('select 1'), silent])).toBe('unreachable (no answer within 2 s)');
  });
});

describe('the SQLite query-only connection', () => {
  let dir: string;
  let db: Knex;
  let pools: DatabasePools;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'driver-pools-'));
    const target = { kind: 'sqlite', location: path.join(dir, 'db.sqlite') } as const;
    db = connectDatabase(target);
    await db.schema.createTable('accounts', (t) => {
      t.string('id').primary();
      t.string('status');
    });
    pools = openPools(db, target);
  });
  afterEach(async () => {
    await pools.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cannot write', async () => {
    // Matched by message: better-sqlite3's error class comes from another realm under jest's workers.
    await expect(
      pools.reads.first("INSERT INTO accounts (id, status) VALUES ('b', 'x') RETURNING id", []),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/readonly|read-only|query_only/i),
    });
    expect(await db('accounts').count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('is not opened for a database in memory: knex answers there', async () => {
    const memory = connectDatabase({ kind: 'sqlite', location: ':memory:' });
    const inMemory = openPools(memory, { kind: 'sqlite', location: ':memory:' });
    // Closing the pools closes nothing: every read went through knex's one connection.
    await inMemory.close();
    expect(await inMemory.reads.first('SELECT 2 AS two', [])).toEqual({ two: 2 });
    await memory.destroy();
  });
});
