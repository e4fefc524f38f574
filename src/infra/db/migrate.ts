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
      const locked = /already locked|already exists|duplicate/i.test(String((error as { message?: unknown })?.message));
      if (!locked || Date.now() > giveUpAt) throw error;
      await sleep(waitMs);
    }
  }
}
