import type { Knex } from 'knex';
import type { Settings } from '../config/settings';
import type { Logger } from '../core/common/logger';
import { connectDatabase, type DatabaseTarget, parseDatabaseUrl } from '../infra/db/connect';
import { type DatabasePools, openPools } from '../infra/db/driver-pools';
import type { Lifecycle } from './lifecycle';

/** The module's way to its database: knex, and the pools chosen for it (the driver's own when the module opened the database). */
export interface OpenedDatabase {
  readonly knex: Knex;
  /** Reads, writes and transactions beside knex's builder (src/infra/db/driver-pools.ts); all knex on a host's knex. */
  readonly pools: DatabasePools;
  /** Where the module connected, when it did (undefined on a host's knex). */
  readonly target: DatabaseTarget | undefined;
  /** Whether the credit ledger is the module's own (the host gave no `ledgerFactory` port). */
  readonly ownsLedger: boolean;
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
  { ownsLedger }: { readonly ownsLedger: boolean },
): OpenedDatabase {
  if (database !== undefined && typeof database !== 'string')
    return { knex: database, pools: openPools(database, undefined), target: undefined, ownsLedger };
  const target = parseDatabaseUrl(database ?? settings.databaseUrl);
  const knex = connectDatabase(target, { poolMax: settings.dbPoolMax, logger });
  const pools = openPools(knex, target, { poolMax: settings.dbPoolMax, ownsLedger });
  lifecycle.onStop(async () => {
    await pools.close();
    await knex.destroy();
  });
  return { knex, pools, target, ownsLedger };
}
