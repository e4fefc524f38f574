import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { directReaderOf, readFirst } from '../../src/infra/db/direct-reads';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

/**
 * The hot-path reads beside knex (src/infra/db/direct-reads.ts, ADR 10) see what is committed
 * and nothing else, on the run's engine: SQLite's query-only second connection, or a
 * connection borrowed from the MariaDB pool.
 */
describe(`hot-path reads (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  const status = async (on: Knex | Knex.Transaction = db) =>
    (await readFirst<{ status: string }>(on, 'SELECT status FROM accounts WHERE id = ?', ['a']))?.status;

  beforeEach(async () => {
    database = await createTestDatabase();
    db = connectDatabase(parseDatabaseUrl(database.url));
    await db.schema.createTable('accounts', (t) => {
      t.string('id').primary();
      t.string('status');
    });
    await db('accounts').insert({ id: 'a', status: 'active' });
  });
  afterEach(async () => {
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

  it('never see a rolled-back write; inside the transaction the read is made on it and sees its own write', async () => {
    await expect(
      db.transaction(async (trx) => {
        await trx('accounts').where({ id: 'a' }).update({ status: 'gone' });
        expect(await status(trx)).toBe('gone');
        expect(await status()).toBe('active');
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await status()).toBe('active');
  });

  it('answer undefined for no row and pass a database error on', async () => {
    expect(await readFirst(db, 'SELECT status FROM accounts WHERE id = ?', ['nobody'])).toBeUndefined();
    // Matched by message: better-sqlite3's error class comes from another realm under jest's workers.
    await expect(readFirst(db, 'SELECT status FROM no_such_table WHERE id = ?', ['a'])).rejects.toMatchObject({
      message: expect.stringMatching(/no_such_table/),
    });
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
});

describe('the SQLite query-only connection', () => {
  let dir: string;
  let db: Knex;
  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'direct-reads-'));
    db = connectDatabase({ kind: 'sqlite', location: path.join(dir, 'db.sqlite') });
    await db.schema.createTable('accounts', (t) => {
      t.string('id').primary();
      t.string('status');
    });
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('cannot write', () => {
    expect(() =>
      directReaderOf(db)!.first("INSERT INTO accounts (id, status) VALUES ('b', 'x') RETURNING id", []),
    ).toThrow(/readonly|read-only|query_only/i);
  });

  it('is offered for the root connection only', async () => {
    await db.transaction(async (trx) => {
      expect(directReaderOf(trx)).toBeUndefined();
    });
    expect(directReaderOf(db)).toBeDefined();
  });

  it('is closed with the connection', async () => {
    const reader = directReaderOf(db)!;
    expect(reader.first('SELECT 1 AS one', [])).toEqual({ one: 1 });
    await db.destroy();
    expect(directReaderOf(db)).toBeUndefined();
    expect(() => reader.first('SELECT 1', [])).toThrow(/closed/);
    db = connectDatabase({ kind: 'sqlite', location: path.join(dir, 'db.sqlite') });
  });

  it('is not made for a database in memory or on MySQL', async () => {
    const memory = connectDatabase({ kind: 'sqlite', location: ':memory:' });
    const mysql = connectDatabase({ kind: 'mysql', location: 'mysql://root@127.0.0.1:1/none' });
    expect(directReaderOf(memory)).toBeUndefined();
    expect(directReaderOf(mysql)).toBeUndefined();
    expect(await readFirst(memory, 'SELECT 2 AS two', [])).toEqual({ two: 2 });
    await memory.destroy();
    await mysql.destroy();
  });
});
