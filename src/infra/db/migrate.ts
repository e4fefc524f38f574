import type { Knex } from 'knex';
import { MIGRATIONS, type Migration } from '../../../migrations';

const source: Knex.MigrationSource<Migration & { name: string }> = {
  getMigrations: async () => MIGRATIONS.map(([name, migration]) => ({ name, ...migration })),
  getMigrationName: (migration) => migration.name,
  getMigration: async (migration) => migration,
};

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Brings the schema to the latest version. Safe on every start and from several processes at
 * once: knex takes a lock row; a process that finds it taken waits and tries again, and then
 * finds nothing left to do.
 */
export async function migrateLatest(db: Knex, { timeoutMs = 300_000, waitMs = 250 } = {}): Promise<string[]> {
  const giveUpAt = Date.now() + timeoutMs;
  for (;;) {
    try {
      const [, applied] = (await db.migrate.latest({ migrationSource: source })) as [number, string[]];
      return applied;
    } catch (error) {
      // Two processes racing to create the bookkeeping tables collide too; the retry sees them made.
      const message = String((error as { message?: unknown })?.message);
      const locked = /already locked|already exists|duplicate/i.test(message);
      if (!locked || Date.now() > giveUpAt) throw error;
      if (/already locked/i.test(message)) await keepOneLockRow(db);
      await sleep(waitMs);
    }
  }
}

/**
 * knex inserts the lock row when it finds the lock table empty, so two processes creating the
 * table at once can insert one each; its lock (`UPDATE … WHERE is_locked = 0`, exactly one row
 * expected) then fails for everybody, forever. Keeping the first row mends it; when the lock is
 * held, every row says so, and the one kept still does.
 */
async function keepOneLockRow(db: Knex): Promise<void> {
  try {
    const rows: Array<{ index: number }> = await db('knex_migrations_lock').select('index').orderBy('index');
    if (rows.length > 1) await db('knex_migrations_lock').where('index', '>', rows[0]!.index).del();
  } catch {
    // The table may not exist yet (another process is creating it): the next attempt sees it.
  }
}

/**
 * The migrations this code knows that the database has not applied, in order (all of them on a
 * database without the bookkeeping table). Reads only: unlike knex's `migrate.list`, it never
 * creates the bookkeeping tables.
 */
export async function pendingMigrations(db: Knex): Promise<string[]> {
  if (!(await db.schema.hasTable('knex_migrations'))) return MIGRATIONS.map(([name]) => name);
  const applied = new Set((await db('knex_migrations').select('name')).map((row: { name: string }) => row.name));
  return MIGRATIONS.map(([name]) => name).filter((name) => !applied.has(name));
}
