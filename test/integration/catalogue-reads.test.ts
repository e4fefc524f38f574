import { fixedClock } from '../../src/core/common/clock';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('catalogue reads reused for CATALOGUE_CACHE_MS (ADR 8)', () => {
  let db: TestDatabase;
  let server: ResellerModule;
  let admin: ResellerModule;
  let groupId: string;
  const clock = fixedClock('2026-11-21T10:00:00Z');

  beforeAll(async () => {
    db = await createTestDatabase();
    // Two processes on one database: a running server and the operator's CLI.
    server = await createResellerModule({
      database: db.url,
      clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    admin = await createResellerModule({
      database: db.url,
      clock,
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
    await server.migrate();
    groupId = (await server.services.resellers.createGroup('default')).id;
    await server.services.catalogue.setTld({
      tld: '.com',
      group: 'default',
      registrar: 'sandbox',
      prices: { register: { 1: 1000 } },
    });
  });
  afterAll(async () => {
    await server.close();
    await admin.close();
    await db.drop();
  });

  it('applies a price change made in the same process at once', async () => {
    expect(await server.services.catalogue.pricing(groupId, 'a.com', 'register')).toEqual({ 1: '10.00' });
    await server.services.catalogue.setTld({
      tld: '.com',
      group: 'default',
      registrar: 'sandbox',
      prices: { register: { 1: 1100 } },
    });
    expect(await server.services.catalogue.pricing(groupId, 'a.com', 'register')).toEqual({ 1: '11.00' });
  });

  it('reads the catalogue once for repeated orders within CATALOGUE_CACHE_MS (the module is wired with it)', async () => {
    const queries: string[] = [];
    const count = (q: { sql: string }) => {
      queries.push(q.sql);
    };
    await server.services.catalogue.pricing(groupId, 'a.com', 'register');
    server.knex.on('query', count);
    try {
      await server.services.catalogue.pricing(groupId, 'b.com', 'register');
      await server.services.catalogue.pricing(groupId, 'c.com', 'register');
    } finally {
      server.knex.removeListener('query', count);
    }
    expect(queries).toEqual([]);
  });

  it('applies a price change made by another process within CATALOGUE_CACHE_MS', async () => {
    expect(await server.services.catalogue.pricing(groupId, 'a.com', 'register')).toEqual({ 1: '11.00' });
    await admin.services.catalogue.setTld({
      tld: '.com',
      group: 'default',
      registrar: 'sandbox',
      prices: { register: { 1: 1200 } },
    });
    clock.advance(server.settings.catalogueCacheMs);
    expect(await server.services.catalogue.pricing(groupId, 'a.com', 'register')).toEqual({ 1: '12.00' });
  });
});
