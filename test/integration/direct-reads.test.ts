import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Knex } from 'knex';
import { connectDatabase } from '../../src/infra/db/connect';
import { directReaderOf } from '../../src/infra/db/direct-reads';

/** The SQLite hot-path reader (src/infra/db/direct-reads.ts) sees what is committed, and nothing else. */
describe('direct reads on SQLite', () => {
  let dir: string;
  let db: Knex;
  const read = () => directReaderOf(db)!.first<{ status: string }>('SELECT status FROM accounts WHERE id = ?', ['a'])?.status;

  beforeEach(async () => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'direct-reads-'));
    db = connectDatabase({ kind: 'sqlite', location: path.join(dir, 'db.sqlite') });
    await db.schema.createTable('accounts', (t) => { t.string('id').primary(); t.string('status'); });
    await db('accounts').insert({ id: 'a', status: 'active' });
  });
  afterEach(async () => {
    await db.destroy();
    rmSync(dir, { recursive: true, force: true });
  });

  it('sees a committed change at once (a suspension applies to the next request)', async () => {
    expect(read()).toBe('active');
    await db('accounts').where({ id: 'a' }).update({ status: 'suspended' });
    expect(read()).toBe('suspended');
  });

  it('does not see the uncommitted writes of a transaction in progress, and sees them once it commits', async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => { release = resolve; });
    let written!: () => void;
    const wrote = new Promise<void>((resolve) => { written = resolve; });
    const transaction = db.transaction(async (trx) => {
      await trx('accounts').where({ id: 'a' }).update({ status: 'suspended' });
      written();
      await held;
    });
    await wrote;
    expect(read()).toBe('active');
    release();
    await transaction;
    expect(read()).toBe('suspended');
  });

  it('a rolled-back write is never seen', async () => {
    await expect(db.transaction(async (trx) => {
      await trx('accounts').where({ id: 'a' }).update({ status: 'gone' });
      expect(read()).toBe('active');
      throw new Error('roll back');
    })).rejects.toThrow('roll back');
    expect(read()).toBe('active');
  });

  it('is offered for the root connection only: reads inside a transaction go through it (read your own writes)', async () => {
    await db.transaction(async (trx) => {
      expect(directReaderOf(trx)).toBeUndefined();
    });
    expect(directReaderOf(db)).toBeDefined();
  });

  it('cannot write', () => {
    expect(() => directReaderOf(db)!.first("UPDATE accounts SET status = 'x' RETURNING status", [])).toThrow(/readonly|read-only|query_only/i);
  });

  it('is closed with the connection', async () => {
    const reader = directReaderOf(db)!;
    expect(read()).toBe('active');
    await db.destroy();
    expect(directReaderOf(db)).toBeUndefined();
    expect(() => reader.first('SELECT 1', [])).toThrow(/closed/);
    db = connectDatabase({ kind: 'sqlite', location: path.join(dir, 'db.sqlite') });
  });

  it('is not made for a database in memory or on MySQL (they keep the knex path)', async () => {
    const memory = connectDatabase({ kind: 'sqlite', location: ':memory:' });
    const mysql = connectDatabase({ kind: 'mysql', location: 'mysql://root@127.0.0.1:1/none' });
    expect(directReaderOf(memory)).toBeUndefined();
    expect(directReaderOf(mysql)).toBeUndefined();
    await memory.destroy();
    await mysql.destroy();
  });
});
