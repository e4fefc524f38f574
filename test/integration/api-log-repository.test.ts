import type { Knex } from 'knex';
import type { ApiLogEntry } from '../../src/core/api-log/api-log';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { type DatabasePools, type DirectWrites, openPools } from '../../src/infra/db/driver-pools';
import { migrateLatest } from '../../src/infra/db/migrate';
import { KnexApiLogRepository } from '../../src/infra/repositories/knex-api-log-repository';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

const FULL_BATCH = 3;

const entry = (n: number, fields: Partial<ApiLogEntry> = {}): ApiLogEntry => ({
  resellerId: 'R1',
  at: new Date(Date.UTC(2026, 10, 27, 4, 0, n)),
  method: 'GET',
  route: '/billing/credits',
  domain: null,
  status: 200,
  durationMs: 2,
  error: null,
  requestId: `req-${n}`,
  clientIp: '127.0.0.1',
  requestBody: null,
  replyBody: '{"credits":"123.45"}',
  ...fields,
});

/**
 * The API log's batch insert on the run's engine: a full batch goes as the one prepared statement
 * (src/infra/db/driver-pools.ts `writeRepeated`), any other count as text, and both store the
 * same rows.
 */
describe(`the API log's batch insert (${TEST_ENGINE})`, () => {
  let database: TestDatabase;
  let db: Knex;
  let pools: DatabasePools;
  let sent: Array<{ how: 'text' | 'prepared'; sql: string }>;
  let repository: KnexApiLogRepository;

  beforeAll(async () => {
    database = await createTestDatabase();
    const target = parseDatabaseUrl(database.url);
    db = connectDatabase(target);
    await migrateLatest(db);
    pools = openPools(db, target, { poolMax: 2 });
  });
  beforeEach(async () => {
    await db('api_log').del();
    sent = [];
    const recording: DirectWrites = {
      write: (sql, bindings) => {
        sent.push({ how: 'text', sql });
        return pools.writes.write(sql, bindings);
      },
      writeRepeated: (sql, bindings) => {
        sent.push({ how: 'prepared', sql });
        return pools.writes.writeRepeated(sql, bindings);
      },
    };
    repository = new KnexApiLogRepository(db, recording, FULL_BATCH);
  });
  afterAll(async () => {
    await pools.close();
    await db.destroy();
    await database.drop();
  });

  it('sends every full batch as the same prepared statement, and any other count as text', async () => {
    await repository.insertMany([entry(1), entry(2), entry(3)]);
    await repository.insertMany([entry(4), entry(5), entry(6)]);
    await repository.insertMany([entry(7), entry(8)]);
    await repository.insertMany([entry(9), entry(10), entry(11), entry(12)]);
    expect(sent.map((s) => s.how)).toEqual(['prepared', 'prepared', 'text', 'text']);
    expect(sent[1]!.sql).toBe(sent[0]!.sql);
    expect(await db('api_log').count({ n: '*' }).first()).toEqual({ n: 12 });
  });

  it('stores the same row whether the batch was prepared or sent as text: nulls, non-ASCII, long bodies, numbers', async () => {
    const odd = (n: number) =>
      entry(n, {
        resellerId: '01JD5Z8Q3N4V6W7X8Y9Z0A1B2C',
        at: new Date(Date.UTC(2026, 10, 27, 4, 0, 0, 999)),
        method: 'POST',
        route: '/domains/:domain/lock',
        domain: 'xn--bcher-kva.example',
        status: 409,
        durationMs: 12.6,
        error: "The domain bücher.example is not in your account ('quoted'; \\ back-slashed)",
        requestId: `réq-${n}`,
        clientIp: '::1',
        requestBody: JSON.stringify({ note: `ünïcödé ${'x'.repeat(5000)}`, eppcode: '[redacted]' }),
        replyBody: null,
      });
    await repository.insertMany([odd(1), odd(2), odd(3)]);
    await repository.insertMany([odd(4), odd(5)]);
    expect(sent.map((s) => s.how)).toEqual(['prepared', 'text']);
    const rows = await repository.find({ resellerId: '01JD5Z8Q3N4V6W7X8Y9Z0A1B2C', limit: 10 });
    const expected = (n: number) => ({ ...odd(n), durationMs: 13 });
    expect(rows.sort((a, b) => a.requestId.localeCompare(b.requestId))).toEqual([1, 2, 3, 4, 5].map(expected));
  });

  it('refuses a full batch the database refuses, and writes the next one', async () => {
    const nobodys = entry(2, { resellerId: null as unknown as string });
    await expect(repository.insertMany([entry(1), nobodys, entry(3)])).rejects.toMatchObject({
      message: expect.stringMatching(/reseller_id/),
    });
    await repository.insertMany([entry(4), entry(5), entry(6)]);
    expect(await db('api_log').orderBy('request_id').pluck('request_id')).toEqual(['req-4', 'req-5', 'req-6']);
  });
});
