import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { directWritesOf, type HotReads, knexHotReads, openHotReads } from '../../src/infra/db/direct-reads';
import { migrateLatest } from '../../src/infra/db/migrate';
import { KnexUnitOfWork, knexLedger } from '../../src/infra/repositories/knex-unit-of-work';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/**
 * The hot-path reads on a connection of their own (src/infra/db/direct-reads.ts, ADR 12) see
 * what is committed and nothing else, on the run's engine: SQLite's query-only connection of the
 * file, or the MariaDB pool of its own.
 */
describe(`hot-path reads (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let reads: HotReads;
  const status = async (on: HotReads = reads) =>
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
    reads = openHotReads(target, { poolMax: 4 })!;
  });
  afterEach(async () => {
    await reads.close();
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
    expect(await reads.first('SELECT status FROM accounts WHERE id = ?', ['nobody'])).toBeUndefined();
    // Matched by message: the drivers' error classes come from another realm under jest's workers.
    const failed = await reads.first('SELECT status FROM no_such_table WHERE id = ?', ['secret-value']).then(
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

  it('write through the MySQL/MariaDB pool only, each statement committed at once', async () => {
    const writes = directWritesOf(reads);
    if (TEST_ENGINE !== 'mariadb') {
      expect(writes).toBeUndefined();
      return;
    }
    await writes!.write('INSERT INTO accounts (id, status) VALUES (?, ?), (?, ?)', ['b', 'new', 'c', 'new']);
    expect(await db('accounts').whereIn('id', ['b', 'c']).orderBy('id').pluck('status')).toEqual(['new', 'new']);
    await expect(writes!.write('INSERT INTO no_such_table (id) VALUES (?)', ['d'])).rejects.toMatchObject({
      message: expect.stringMatching(/no_such_table/),
    });
  });

  it('refuse to read once closed', async () => {
    const other = openHotReads(parseDatabaseUrl(database.url))!;
    expect(await status(other)).toBe('active');
    await other.close();
    await expect(status(other)).rejects.toThrow(/closed/i);
  });
});

/**
 * Authentication's one statement (ADR 12): the reseller with its balance, read outside any
 * transaction through the hot-path reader, and inside a unit of work through the transaction.
 */
describe(`the sign-in read of the reseller repository (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let reads: HotReads;
  let uow: KnexUnitOfWork;
  const EMAIL = 'signin@example.com';

  beforeEach(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    reads = openHotReads(target, { poolMax: 4 }) ?? knexHotReads(db);
    uow = new KnexUnitOfWork(db, knexLedger, reads);
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
    await reads.close();
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

describe('the SQLite query-only connection', () => {
  let dir: string;
  let db: Knex;
  let reads: HotReads;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'direct-reads-'));
    const target = { kind: 'sqlite', location: path.join(dir, 'db.sqlite') } as const;
    db = connectDatabase(target);
    await db.schema.createTable('accounts', (t) => {
      t.string('id').primary();
      t.string('status');
    });
    reads = openHotReads(target)!;
  });
  afterEach(async () => {
    await reads.close();
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cannot write', async () => {
    // Matched by message: better-sqlite3's error class comes from another realm under jest's workers.
    await expect(
      reads.first("INSERT INTO accounts (id, status) VALUES ('b', 'x') RETURNING id", []),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/readonly|read-only|query_only/i),
    });
    expect(await db('accounts').count({ n: '*' })).toEqual([{ n: 0 }]);
  });

  it('is not opened for a database in memory: knex answers there', async () => {
    expect(openHotReads({ kind: 'sqlite', location: ':memory:' })).toBeUndefined();
    const memory = connectDatabase({ kind: 'sqlite', location: ':memory:' });
    expect(await knexHotReads(memory).first('SELECT 2 AS two', [])).toEqual({ two: 2 });
    await memory.destroy();
  });
});
