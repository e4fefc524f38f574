import type { Knex } from 'knex';
import { rawRows } from './database-kind';

/** The part of better-sqlite3 used here (the package ships no types; knex loads the same module). */
interface SqliteStatement {
  get(...bindings: unknown[]): unknown;
}
interface SqliteDatabase {
  prepare(sql: string): SqliteStatement;
  pragma(sql: string): unknown;
  close(): void;
}
type SqliteOpen = new (file: string, options: { fileMustExist: boolean }) => SqliteDatabase;

/**
 * Single-row reads on the request hot path (authentication's reseller lookup and the balance),
 * made without knex's per-query machinery (builder, compiler, runner, query events), which cost
 * more than the read itself (bench/RESULTS.md, "Hot paths"; ADR 10).
 *
 * - SQLite file: a second connection on the same file, for queries only, answers synchronously
 *   from cached prepared statements. The knex pool has one connection, which 64 concurrent
 *   requests would otherwise queue for behind every other query and transaction.
 * - MySQL/MariaDB: the query goes straight to a connection borrowed from knex's own pool.
 * - A transaction, a `:memory:` database or a knex instance the host owns: plain SQL through
 *   `knex.raw` on it.
 *
 * What a read sees: it is its own statement outside any transaction, so it sees exactly what is
 * committed when it runs (WAL on SQLite: readers never wait for the writer). A key rotated or a
 * reseller suspended by any process is seen by the next request, as through knex; another
 * flow's uncommitted writes never are. Inside a unit of work the repositories are given the
 * transaction, which has no direct path, so a transaction reads its own writes.
 */
export interface DirectReader {
  /** The first row of `sql` (plain SQL with `?` placeholders), or undefined. */
  first<Row>(sql: string, bindings: readonly unknown[]): Row | undefined;
}

const readers = new WeakMap<object, SqliteDirectReader>();
const pooled = new WeakSet<object>();

/** Lets `readFirst` borrow connections of this MySQL/MariaDB knex instance's pool directly. */
export function allowPooledReads(db: Knex): void {
  pooled.add(db);
}

/** The first row of a hot single-row read (plain SQL with `?` placeholders), by the cheapest path `db` allows. */
export async function readFirst<Row>(
  db: Knex | Knex.Transaction,
  sql: string,
  bindings: readonly unknown[],
): Promise<Row | undefined> {
  const direct = readers.get(db);
  if (direct) return direct.first<Row>(sql, bindings);
  if (pooled.has(db)) return (await pooledQuery<Row>(db as Knex, sql, bindings))[0];
  return rawRows<Row>(db, await db.raw(sql, bindings as Knex.RawBinding[]))[0];
}

interface PooledClient {
  acquireConnection(): Promise<MysqlConnection>;
  releaseConnection(connection: MysqlConnection): Promise<unknown>;
}
interface MysqlConnection {
  query(
    options: { sql: string },
    values: readonly unknown[],
    callback: (error: Error | null, rows: unknown) => void,
  ): void;
}

/**
 * What knex's MySQL dialect does for a query, without the runner around it: borrow a pool
 * connection, send the statement, give the connection back. A connection that fails is marked
 * by knex's own error listener and dropped by the pool, as for any query.
 */
async function pooledQuery<Row>(db: Knex, sql: string, bindings: readonly unknown[]): Promise<Row[]> {
  const client = db.client as PooledClient;
  const connection = await client.acquireConnection();
  try {
    return await new Promise<Row[]>((resolve, reject) => {
      connection.query({ sql }, bindings, (error, rows) => (error ? reject(error) : resolve(rows as Row[])));
    });
  } finally {
    void client.releaseConnection(connection);
  }
}

/** The direct reader of a knex instance made by `connectDatabase` on a SQLite file; undefined for anything else (transactions included). */
export function directReaderOf(db: Knex | Knex.Transaction): DirectReader | undefined {
  return readers.get(db);
}

/** Gives `db` a direct reader on `file`, opened on first use and closed when `db` is destroyed. */
export function attachSqliteReader(db: Knex, file: string, busyTimeoutMs: number): void {
  const reader = new SqliteDirectReader(file, busyTimeoutMs);
  readers.set(db, reader);
  // knex's own `destroy` cannot be replaced; it ends in the client's, which can.
  const client = db.client as { destroy(callback?: unknown): Promise<void> };
  const destroy = client.destroy.bind(client);
  client.destroy = (callback?: unknown) => {
    reader.close();
    readers.delete(db);
    return destroy(callback);
  };
}

const STATEMENT_CACHE_SIZE = 100;

class SqliteDirectReader implements DirectReader {
  private connection: SqliteDatabase | undefined;
  private readonly statements = new Map<string, SqliteStatement>();
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
  ) {}

  first<Row>(sql: string, bindings: readonly unknown[]): Row | undefined {
    return this.statement(sql).get(...bindings) as Row | undefined;
  }

  close(): void {
    this.closed = true;
    this.statements.clear();
    this.connection?.close();
    this.connection = undefined;
  }

  private statement(sql: string): SqliteStatement {
    let statement = this.statements.get(sql);
    if (statement === undefined) {
      statement = this.open().prepare(sql);
      if (this.statements.size >= STATEMENT_CACHE_SIZE) this.statements.delete(this.statements.keys().next().value!);
      this.statements.set(sql, statement);
    }
    return statement;
  }

  private open(): SqliteDatabase {
    if (this.closed) throw new Error('the database connection is closed');
    if (!this.connection) {
      // The writer connection creates the file and sets WAL mode (a property of the file); this one only reads.
      const Database = require('better-sqlite3') as SqliteOpen;
      const connection = new Database(this.file, { fileMustExist: true });
      connection.pragma(`busy_timeout = ${this.busyTimeoutMs}`);
      connection.pragma('query_only = ON');
      this.connection = connection;
    }
    return this.connection;
  }
}
