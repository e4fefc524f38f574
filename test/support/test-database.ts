import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';

/** Which engine this run uses: SQLite by default, MariaDB with TEST_DB=mariadb (CI runs both). */
export const TEST_ENGINE: 'sqlite' | 'mariadb' = process.env.TEST_DB === 'mariadb' ? 'mariadb' : 'sqlite';
const MARIADB_SERVER = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';

export interface TestDatabase {
  readonly url: string;
  drop(): Promise<void>;
}

/**
 * A fresh, empty database for one test file: a temporary SQLite file, or a new MariaDB database
 * on the test server. Runs cannot interfere with each other. An unreachable MariaDB fails the
 * run; it is never skipped.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  if (TEST_ENGINE === 'sqlite') return createSqliteDatabase('reseller-test-', 'test.sqlite');
  return createMariaDbDatabase(MARIADB_SERVER, `reseller_test_${Date.now().toString(36)}`);
}

/** A SQLite file (`file`) in a new temporary folder named from `prefix`; `drop` removes the folder. Shared with bench/support/databases.ts. */
export function createSqliteDatabase(prefix: string, file: string): TestDatabase {
  const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
  return { url: `sqlite:${path.join(dir, file)}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A new, empty MariaDB database on `server`, named `prefix` and a random suffix; `drop` drops it.
 * `unreachable` rewords a failure to create it. Shared with bench/support/databases.ts.
 */
export async function createMariaDbDatabase(
  server: string,
  prefix: string,
  unreachable?: (error: Error) => Error,
): Promise<TestDatabase> {
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  const admin = knex({ client: 'mysql2', connection: server });
  try {
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } catch (error) {
    throw unreachable ? unreachable(error as Error) : error;
  } finally {
    await admin.destroy();
  }
  return {
    url: `${server.replace(/\/+$/, '')}/${name}`,
    async drop() {
      const cleanup = knex({ client: 'mysql2', connection: server });
      try {
        await cleanup.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await cleanup.destroy();
      }
    },
  };
}
