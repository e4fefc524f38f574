import type { Knex } from 'knex';
import type { DomainListFilter } from '../../src/core/console/console-lists';
import { fixedClock } from '../../src/core/common/clock';
import { ulid } from '../../src/core/common/ids';
import { TOKENS } from '../../src/core/tokens';
import { createResellerModule, type ResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, TEST_ENGINE, type TestDatabase } from '../support/test-database';

const DOMAINS = 3000;
const TLDS = ['.com', '.net', '.org'];
const STATUSES = ['Active', 'Active', 'Expired', 'Cancelled'] as const;

interface Seeded {
  readonly name: string;
  readonly tld: string;
  readonly status: string;
  readonly registrar: string;
  readonly expiryDate: string;
}

/** The console's domain list across resellers: its filters, its keyset pages, and the indexes that serve a filter matching few domains. */
describe('console domain list', () => {
  let db: TestDatabase;
  let module: ResellerModule;
  const seeded: Seeded[] = [];

  beforeAll(async () => {
    db = await createTestDatabase();
    module = await createResellerModule({
      database: db.url,
      clock: fixedClock('2026-11-21T10:00:00Z'),
      settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent', backgroundJobs: false },
    });
    await module.migrate();
    await module.services.resellers.createGroup('default');
    const resellerIds: string[] = [];
    for (let i = 0; i < 3; i++)
      resellerIds.push((await module.services.resellers.create(`r${i}@example.com`, 'default', 0)).reseller.id);
    // Rows written directly: the list reads what is stored, and thousands of orders would only slow the test.
    const rows = [];
    for (let i = 0; i < DOMAINS; i++) {
      const tld = TLDS[i % TLDS.length]!;
      const d: Seeded = {
        name: `name-${String(i).padStart(5, '0')}${tld}`,
        tld,
        status: STATUSES[i % STATUSES.length]!,
        registrar: i % 500 === 7 ? 'rare-registrar' : 'sandbox',
        expiryDate: `2027-${String((i % 12) + 1).padStart(2, '0')}-15`,
      };
      seeded.push(d);
      rows.push({
        id: ulid(),
        name: d.name,
        unicode_name: d.name,
        tld: d.tld,
        reseller_id: resellerIds[i % resellerIds.length]!,
        registrar: d.registrar,
        status: d.status,
        expiry_date: d.expiryDate,
        created_at: 0,
        updated_at: 0,
      });
    }
    await module.knex.batchInsert('domains', rows, 500);
    if (TEST_ENGINE === 'mariadb') await module.knex.raw('analyze table domains');
  });
  afterAll(async () => {
    await module.close();
    await db.drop();
  });

  const everyPage = async (filter: DomainListFilter): Promise<string[]> => {
    const lists = module.container.get(TOKENS.consoleLists);
    const names: string[] = [];
    let cursor: string | undefined;
    do {
      const page = await lists.domains({ ...filter, cursor, limit: 50 });
      names.push(...page.items.map((d) => d.name));
      cursor = page.next ?? undefined;
    } while (cursor);
    return names;
  };

  it('pages through every domain the three filters select, once each, in name order', async () => {
    const expected = seeded
      .filter((d) => d.status === 'Active' && d.registrar === 'sandbox' && d.tld === '.com')
      .map((d) => d.name)
      .sort();
    expect(expected.length).toBeGreaterThan(100);
    expect(await everyPage({ status: 'Active', registrar: 'sandbox', tld: '.com' })).toEqual(expected);
  });

  it('finds the few domains of a rare registrar, and none for a TLD it holds none of', async () => {
    expect(await everyPage({ registrar: 'rare-registrar' })).toEqual(
      seeded
        .filter((d) => d.registrar === 'rare-registrar')
        .map((d) => d.name)
        .sort(),
    );
    expect(await everyPage({ tld: '.io' })).toEqual([]);
  });

  /** The plan of the list's SQL for a filter: SQLite's EXPLAIN QUERY PLAN lines, MariaDB's EXPLAIN rows of the domains table. */
  const planOf = async (filter: DomainListFilter): Promise<string[]> => {
    const statements: Array<{ sql: string; bindings: readonly Knex.RawBinding[] }> = [];
    const capture = (q: { sql: string; bindings?: readonly Knex.RawBinding[] }) => {
      statements.push({ sql: q.sql, bindings: q.bindings ?? [] });
    };
    module.knex.on('query', capture);
    try {
      await module.container.get(TOKENS.consoleLists).domains({ ...filter, limit: 50 });
    } finally {
      module.knex.off('query', capture);
    }
    expect(statements).toHaveLength(1);
    const { sql, bindings } = statements[0]!;
    if (TEST_ENGINE === 'sqlite') {
      const rows = (await module.knex.raw(`explain query plan ${sql}`, bindings)) as Array<{
        detail: string;
      }>;
      return rows.map((r) => r.detail);
    }
    const [rows] = (await module.knex.raw(`explain ${sql}`, bindings)) as [
      Array<{ table: string; type: string; key: string | null }>,
    ];
    return rows.filter((r) => r.table === 'd').map((r) => `${r.type} ${r.key}`);
  };

  it.each([
    ['a TLD with no domains', { tld: '.io' }, 'domains_tld_name_index'],
    ['a registrar with few domains', { registrar: 'rare-registrar' }, 'domains_registrar_name_index'],
  ])('finds %s through an index on that filter, not by walking the whole name index', async (_, filter, index) => {
    const plan = await planOf(filter);
    if (TEST_ENGINE === 'sqlite') {
      // "SCAN d USING INDEX domains_name_unique" is the walk of every domain in name order.
      expect(plan.filter((line) => /^(SEARCH|SCAN) d USING/.test(line))).toEqual([
        expect.stringMatching(new RegExp(`^SEARCH d USING (COVERING )?INDEX ${index} `)),
      ]);
    } else {
      expect(plan).toEqual([expect.stringMatching(new RegExp(`^(ref|range) ${index}$`))]);
    }
  });
});
