import type { Knex } from 'knex';
import type { Settings } from '../config/settings';
import type { Logger } from '../core/common/logger';
import { connectDatabase, type DatabaseTarget, parseDatabaseUrl } from '../infra/db/connect';
import { type HotReads, openHotReads } from '../infra/db/direct-reads';
import type { Lifecycle } from './lifecycle';

/** The module's way to its database: knex, and the driver's own pools when the module opened the database. */
export interface OpenedDatabase {
  readonly knex: Knex;
  /** ADR 12: authentication's statement on a connection of its own (undefined on a host's knex). */
  readonly hotReads: HotReads | undefined;
  /** Where the module connected, when it did (undefined on a host's knex). */
  readonly target: DatabaseTarget | undefined;
}

/**
 * Opens the database the module was given: a host's knex is used as it is (and never closed), a
 * URL (the option, else DATABASE_URL) is connected here and closed when the module stops.
 */
export function openDatabase(
  database: Knex | string | undefined,
  settings: Settings,
  logger: Logger,
  lifecycle: Lifecycle,
): OpenedDatabase {
  if (database !== undefined && typeof database !== 'string')
    return { knex: database, hotReads: undefined, target: undefined };
  const target = parseDatabaseUrl(database ?? settings.databaseUrl);
  const knex = connectDatabase(target, { poolMax: settings.dbPoolMax, logger });
  // ADR 12: authentication's statement on a connection of its own, through the driver's public API.
  const hotReads = openHotReads(target, { poolMax: settings.dbPoolMax });
  lifecycle.onStop(async () => {
    await hotReads?.close();
    await knex.destroy();
  });
  return { knex, hotReads, target };
}
