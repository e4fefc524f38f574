import type { Knex } from 'knex';

/** The part of better-sqlite3 used here (the package ships no types; knex loads the same module). */
interface SqliteStatement { get(...bindings: unknown[]): unknown }
interface SqliteDatabase { prepare(sql: string): SqliteStatement; pragma(sql: string): unknown; close(): void }
type SqliteOpen = new (file: string, options: { fileMustExist: boolean }) => SqliteDatabase;

/**
 * Single-row reads on the request hot path (authentication's reseller lookup and the balance),
 * served on SQLite without knex's per-query machinery.
 *
 * Why: on SQLite every knex query goes through the query builder, the compiler, the runner and
 * the pool, and the pool has one connection, so 64 concurrent requests queue for it behind every
 * other query and transaction; that machinery cost about four times the SQLite work of a
 * single-row read (bench/RESULTS.md, "Hot paths"). A second connection, opened on the same file
 * for queries only, answers these reads synchronously from cached prepared statements.
 *
 * What it sees: each read is its own statement outside any transaction, so it sees exactly what
 * is committed when it runs (WAL mode: readers never wait for the writer). A key rotated or a
 * reseller suspended by any process is seen by the next request, as through knex. It never
 * sees another flow's uncommitted writes; reads that must see their own transaction's writes
 * are made on that transaction (`directReaderOf` answers only for the root knex instance).
 *
 * MySQL/MariaDB, `:memory:` databases and knex instances a host owns keep the knex path.
 */
export interface DirectReader {
  /** The first row of `sql` (plain SQL with `?` placeholders), or undefined. */
  first<Row>(sql: string, bindings: readonly unknown[]): Row | undefined;
}

const readers = new WeakMap<object, SqliteDirectReader>();

/**
 * The first row of a hot single-row read: on the direct reader where there is one, else through
 * knex as plain SQL (`raw`: no query builder to compile on every call, which cost a single-row
 * read on MariaDB about a sixth of its client CPU). Works on a transaction too.
 */
export async function readFirst<Row>(db: Knex | Knex.Transaction, sql: string, bindings: readonly unknown[]): Promise<Row | undefined> {
  const direct = readers.get(db);
  if (direct) return direct.first<Row>(sql, bindings);
  const result: unknown = await db.raw(sql, bindings as Knex.RawBinding[]);
  // mysql2 answers [rows, fields]; better-sqlite3 the rows.
  const rows = (databaseKindOf(db) === 'mysql' ? (result as unknown[])[0] : result) as Row[];
  return rows[0];
}

function databaseKindOf(db: Knex | Knex.Transaction): 'sqlite' | 'mysql' {
  return String(db.client.config.client).includes('sqlite') ? 'sqlite' : 'mysql';
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

  constructor(private readonly file: string, private readonly busyTimeoutMs: number) {}

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
