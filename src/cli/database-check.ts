import { existsSync } from 'node:fs';
import type { Knex } from 'knex';
import { parseDatabaseUrl } from '../infra/db/connect';
import { pendingMigrations } from '../infra/db/migrate';

const RUN_MIGRATE = 'run `reseller-admin migrate` first';

/**
 * Every command but `migrate` works on a database that exists and whose schema is up to date:
 * it never creates one (a typo in DATABASE_URL would otherwise leave a new, empty SQLite file
 * behind) and never migrates one (the operator decides when the schema changes).
 */
export const checkDatabaseReady = {
  /** Before any connection is opened: opening a SQLite file that is not there creates it. */
  beforeConnecting(databaseUrl: string): void {
    const target = parseDatabaseUrl(databaseUrl);
    if (target.kind === 'sqlite' && target.location !== ':memory:' && !existsSync(target.location)) {
      throw new Error(`there is no database at ${target.location} (DATABASE_URL); ${RUN_MIGRATE} to create it`);
    }
  },

  /**
   * A MariaDB/MySQL database that does not exist, said so with how to create it, whichever first
   * statement met it (opening the module reads the database too); any other error as it was.
   */
  explained(error: unknown, databaseUrl: string): unknown {
    if ((error as { code?: unknown }).code !== 'ER_BAD_DB_ERROR') return error;
    let name = '';
    try {
      name = decodeURIComponent(new URL(databaseUrl.trim()).pathname.replace(/^\//, ''));
    } catch {
      return error;
    }
    return new Error(
      `the database "${name}" does not exist on the MariaDB/MySQL server (DATABASE_URL): ` +
        `create it (CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4), then ${RUN_MIGRATE}`,
    );
  },

  async schema(knex: Knex, databaseUrl: string): Promise<void> {
    let pending: string[];
    try {
      pending = await pendingMigrations(knex);
    } catch (error) {
      throw checkDatabaseReady.explained(error, databaseUrl);
    }
    if (pending.length > 0) {
      throw new Error(
        `the database schema is behind this version (${pending.length} migration${pending.length === 1 ? '' : 's'} ` +
          `not applied, from ${pending[0]}); ${RUN_MIGRATE}`,
      );
    }
  },
};
