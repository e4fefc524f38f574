import { fixedClock } from '../../src/core/common/clock';
import { parseDatabaseUrl } from '../../src/infra/db/connect';
import { openPools } from '../../src/infra/db/driver-pools';
import { KnexPluginStore } from '../../src/infra/plugins/knex-plugin-store';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ctx = () => ({ signal: new AbortController().signal, transactionId: 't' });

describe('sandbox registry state', () => {
  let db: TestDatabase;
  const open = () =>
    createResellerModule({
      database: db.url,
      clock: fixedClock('2026-11-21T10:00:00Z'),
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
    });
  beforeAll(async () => {
    db = await createTestDatabase();
    const first = await open();
    await first.migrate();
    await first.close();
  });
  afterAll(async () => {
    await db.drop();
  });

  it('is shared by two processes on the same database and survives a restart', async () => {
    const server: ResellerModule = await open();
    const cli: ResellerModule = await open();
    try {
      const registered = await server.registrars.get('sandbox').register(
        {
          domain: 'shared.com',
          period: 1,
          nameservers: ['ns1.example.net', 'ns2.example.net'],
          contacts: {},
          addons: {},
          fields: {},
        },
        ctx(),
      );
      expect(registered).toEqual({ ok: true, expiryDate: '2027-11-21' });
      expect(await cli.registrars.get('sandbox').checkAvailability(['shared.com'], ctx())).toEqual([
        { domain: 'shared.com', status: 'registered' },
      ]);
    } finally {
      await server.close();
      await cli.close();
    }
    const restarted = await open();
    try {
      expect(await restarted.registrars.get('sandbox').nameservers!.get({ domain: 'shared.com' }, ctx())).toEqual({
        ok: true,
        nameservers: ['ns1.example.net', 'ns2.example.net'],
      });
    } finally {
      await restarted.close();
    }
  });

  it.each([
    ['through knex', false],
    ["through the driver's own connections", true],
  ])('keeps store keys case-sensitive on every engine, %s', async (_, direct) => {
    const m = await open();
    const pools = direct ? openPools(m.knex, parseDatabaseUrl(db.url)) : undefined;
    try {
      await m.knex('plugin_state').whereIn('plugin_id', ['probe', 'other']).delete();
      const store = new KnexPluginStore(m.knex, 'probe', fixedClock('2026-11-21T10:00:00Z'), pools);
      await store.set('Key', 1);
      expect(await store.setIfAbsent('key', 2)).toBe(true);
      expect(await store.setIfAbsent('key', 3)).toBe(false);
      expect([await store.get('Key'), await store.get('key')]).toEqual([1, 2]);
      await store.set('Key', { replaced: true });
      expect(await store.get('Key')).toEqual({ replaced: true });
      expect(await store.keys('k')).toEqual(['key']);
      await store.delete('Key');
      expect(await store.get('Key')).toBeUndefined();
      expect(
        await new KnexPluginStore(m.knex, 'other', fixedClock('2026-11-21T10:00:00Z'), pools).get('key'),
      ).toBeUndefined();
    } finally {
      await pools?.close();
      await m.close();
    }
  });
});
