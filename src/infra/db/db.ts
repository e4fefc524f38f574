import type { Knex } from 'knex';

/**
 * What a repository is given to run its statements: knex's query builder for a table, raw SQL,
 * and the client (which tells the dialect). Three things are one:
 * - the knex instance (reads outside any transaction);
 * - a knex transaction (`UnitOfWork.run` on SQLite, or on a knex instance the host owns);
 * - knex bound to one connection of the driver's own MySQL/MariaDB pool, inside the transaction
 *   the unit of work opened on it (`onConnection` below; src/infra/db/driver-pools.ts).
 *
 * The statements a repository writes are the same in all three: knex builds them, in the
 * dialect of the database, whichever connection runs them.
 */
export interface Db {
  // biome-ignore lint/suspicious/noExplicitAny: knex's own table signature defaults to any; a Db is called as knex is
  <TRecord extends {} = any, TResult = any[]>(table: string): Knex.QueryBuilder<TRecord, TResult>;
  readonly raw: Knex.RawBuilder;
  readonly client: Knex['client'];
  /**
   * Whether one raw query may carry several statements separated by `;` (answered as a list of
   * results, one per statement, the server stopping at the first that fails): true only on a
   * connection of MySQL/MariaDB's transaction pool (src/infra/db/driver-pools.ts, ADR 14).
   */
  readonly multipleStatements?: boolean;
}

/**
 * knex with every statement it starts sent on `connection` (knex's public `.connection()` of a
 * query or raw statement: the pool is not asked, the connection not released). knex still builds
 * each statement, runs it and shapes its answer as it always does; what is left out is knex's
 * transaction object, made anew for every transaction (its cost on MariaDB is measured in
 * bench/RESULTS.md), and its pool queue. `failed` hears every statement that fails, even one
 * whose error the caller catches.
 */
export function onConnection(
  knex: Knex,
  connection: unknown,
  failed?: (error: unknown) => void,
  options: { readonly multipleStatements?: boolean } = {},
): Db {
  const table = (name: string) => {
    const query = knex(name).connection(connection);
    return failed ? query.on('query-error', failed) : query;
  };
  const raw = (sql: string, bindings?: Knex.RawBinding[] | Knex.ValueDict) => {
    const query = (bindings === undefined ? knex.raw(sql) : knex.raw(sql, bindings)).connection(connection);
    return failed ? query.on('query-error', failed) : query;
  };
  return Object.assign(table, {
    raw: raw as Knex.RawBuilder,
    client: knex.client,
    ...(options.multipleStatements && { multipleStatements: true }),
  }) as Db;
}
