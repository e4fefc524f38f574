import type { Db } from './db';

export type DatabaseKind = 'sqlite' | 'mysql';

/** Which engine a knex instance (or a transaction of one) talks to. */
export function databaseKind(db: Db): DatabaseKind {
  return String(db.client.config.client).includes('sqlite') ? 'sqlite' : 'mysql';
}

/** The rows of a `knex.raw` result: mysql2 answers `[rows, fields]`, better-sqlite3 the rows. */
export function rawRows<Row>(db: Db, result: unknown): Row[] {
  return (databaseKind(db) === 'mysql' ? (result as unknown[])[0] : result) as Row[];
}
