import type { Knex } from 'knex';
import { type Db, onConnection } from './db';
import { createPool, type ExecuteValues, type Pool, type PoolConnection, type PoolOptions } from 'mysql2';
import { type DatabaseTarget, mysqlConnectionOptions } from './connect';
import { rawRows } from './database-kind';
import { endsTransaction } from './errors';

/**
 * The driver's own connections, used through its public API where knex's per-query machinery
 * (builder, compiler, runner, pool queue, transaction object) costs more than the work itself:
 * single-row reads on the request hot path (authentication's one statement; ADR 12), and on
 * MySQL/MariaDB the API log's batch insert and, on a pool of their own, every unit of work's
 * transaction (ADR 14, `DirectWrites` and `DirectTransactions` below; bench/RESULTS.md "Hot
 * paths"). For the reads:
 *
 * - SQLite file: a better-sqlite3 connection of the same file opened here, for queries only,
 *   answering synchronously from the statements it prepared before.
 * - MySQL/MariaDB: a small mysql2 pool of its own; `execute` prepares each SQL text once per
 *   connection and reuses it (the driver's statement cache).
 * - A `:memory:` database or a knex instance the host owns: plain SQL through `knex.raw`.
 *
 * What a read sees: it is its own statement outside any transaction, so it sees exactly what is
 * committed when it runs (WAL on SQLite: readers never wait for the writer; InnoDB: a consistent
 * read per statement). A key rotated or a reseller suspended by any process is seen by the next
 * request; another flow's uncommitted writes never are. Inside a unit of work the repositories
 * are given the transaction instead of a reader, so a transaction reads its own writes.
 */
export interface HotReads {
  /** The first row of `sql` (plain SQL with `?` placeholders), or undefined. */
  first<Row>(sql: string, bindings: readonly unknown[]): Promise<Row | undefined>;
  /** Closes what this reader opened (nothing for one over knex). */
  close(): Promise<void>;
}

/**
 * One statement that writes, sent on the MySQL/MariaDB pool of `HotReads` with the driver's own
 * `query`: the API log's batch insert (500 rows, 5,000 values), for which knex's raw wrapper costs
 * more than the driver does (measured in bench/RESULTS.md). Not for anything that
 * must share a transaction: each call is its own statement, committed at once.
 */
export interface DirectWrites {
  write(sql: string, bindings: readonly unknown[]): Promise<void>;
}

/** The direct writer of a hot-path reader that has one (the MySQL/MariaDB pool); undefined for the others. */
export function directWritesOf(reads: HotReads | undefined): DirectWrites | undefined {
  return reads instanceof MysqlHotReads ? reads : undefined;
}

/**
 * Transactions for `UnitOfWork.run` on MySQL/MariaDB, on connections of a driver pool of their
 * own in manual-commit mode (`SET autocommit = 0`, sent once per connection before its first
 * transaction): a transaction begins with its first statement and ends with `COMMIT`, or
 * `ROLLBACK` when the work throws, as JDBC drivers run transactions. No `BEGIN` is sent: one round
 * trip less per transaction, two per order (ADR 14). The work is given knex bound to the
 * connection (`onConnection`), so its statements are the ones knex builds anywhere else; knex's own
 * transaction object, which costs more than the statements of a short transaction, is not made
 * (bench/RESULTS.md, "units of work on the driver's own pool"). These connections run nothing
 * else: a read outside a unit of work on one would open a transaction and keep its snapshot.
 */
export interface DirectTransactions {
  transaction<T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<T>;
}

/** The transactions beside a hot-path reader that has pools of its own (MySQL/MariaDB); undefined for the others. */
export function directTransactionsOf(reads: HotReads | undefined): DirectTransactions | undefined {
  return reads instanceof MysqlHotReads ? reads.transactions : undefined;
}

export interface HotReadsOptions {
  /** Connections of each MySQL/MariaDB pool, the reads' and the transactions' (in addition to knex's pool). */
  readonly poolMax?: number;
  readonly sqliteBusyTimeoutMs?: number;
}

/** The hot-path reader for a database the module opens itself: its own connection(s) on `target`. */
export function openHotReads(target: DatabaseTarget, options: HotReadsOptions = {}): HotReads | undefined {
  if (target.kind === 'mysql') return new MysqlHotReads(mysqlConnectionOptions(target.location), options.poolMax);
  if (target.location === ':memory:') return undefined;
  return new SqliteHotReads(target.location, options.sqliteBusyTimeoutMs ?? 5000);
}

/** Plain SQL through `knex.raw` on `db`: for a knex instance (or transaction) the module does not own. */
export function knexHotReads(db: Db): HotReads {
  return {
    first: async <Row>(sql: string, bindings: readonly unknown[]) =>
      rawRows<Row>(db, await db.raw(sql, bindings as Knex.RawBinding[]))[0],
    close: async () => undefined,
  };
}

/** The same writes through `knex.raw` on `db`: SQLite, and a knex instance the module does not own. */
export function knexWrites(db: Db): DirectWrites {
  return {
    write: async (sql: string, bindings: readonly unknown[]) => {
      await db.raw(sql, bindings as Knex.RawBinding[]);
    },
  };
}

class MysqlHotReads implements HotReads, DirectWrites {
  private readonly pool: Pool;
  readonly transactions: ManualCommitTransactions;

  constructor(options: PoolOptions, poolMax = 10) {
    this.pool = createPool({ ...options, connectionLimit: poolMax });
    this.transactions = new ManualCommitTransactions(createPool({ ...options, connectionLimit: poolMax }));
  }

  first<Row>(sql: string, bindings: readonly unknown[]): Promise<Row | undefined> {
    return new Promise((resolve, reject) => {
      this.pool.execute(sql, bindings as ExecuteValues[], (error, rows) =>
        // A failed statement's error names its SQL with placeholders (`sql`), never the values.
        error ? reject(error) : resolve((rows as Row[])[0]),
      );
    });
  }

  write(sql: string, bindings: readonly unknown[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pool.query(sql, bindings as ExecuteValues[], (error) => (error ? reject(error) : resolve()));
    });
  }

  async close(): Promise<void> {
    await Promise.all([endPool(this.pool), this.transactions.close()]);
  }
}

class ManualCommitTransactions implements DirectTransactions {
  /** The connections known to be in manual-commit mode: only these are given work. */
  private readonly manualCommit = new WeakSet<PoolConnection>();

  constructor(private readonly pool: Pool) {}

  async transaction<T>(knex: Knex, work: (db: Db) => Promise<T>): Promise<T> {
    const connection = await new Promise<PoolConnection>((resolve, reject) =>
      this.pool.getConnection((error, taken) => (error ? reject(error) : resolve(taken))),
    );
    // A statement the database answered by rolling the whole transaction back (endsTransaction)
    // ends it even when the work caught the error and went on: what ran after it is a new
    // transaction, rolled back here, and the first error is thrown (a deadlock is retried whole).
    let ended: unknown;
    const failed = (error: unknown) => {
      if (ended === undefined && endsTransaction(error)) ended = error;
    };
    // Sent through knex too, so that knex's query events and logs show the transaction's end.
    const db = onConnection(knex, connection, failed);
    let reusable = true;
    try {
      if (!this.manualCommit.has(connection)) {
        // A new connection (the pool opens them as needed, and again after one is lost).
        await db.raw('SET autocommit = 0');
        this.manualCommit.add(connection);
      }
      const result = await work(db);
      if (ended !== undefined) throw ended;
      await db.raw('COMMIT');
      return result;
    } catch (error) {
      // A connection that cannot roll back may still hold the transaction: it is closed, not pooled.
      await db.raw('ROLLBACK').catch(() => {
        reusable = false;
      });
      throw error;
    } finally {
      if (reusable) connection.release();
      else connection.destroy();
    }
  }

  close(): Promise<void> {
    return endPool(this.pool);
  }
}

function endPool(pool: Pool): Promise<void> {
  return new Promise((resolve, reject) => pool.end((error) => (error ? reject(error) : resolve())));
}

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

const STATEMENT_CACHE_SIZE = 100;

class SqliteHotReads implements HotReads {
  private connection: SqliteDatabase | undefined;
  private readonly statements = new Map<string, SqliteStatement>();
  private closed = false;

  constructor(
    private readonly file: string,
    private readonly busyTimeoutMs: number,
  ) {}

  async first<Row>(sql: string, bindings: readonly unknown[]): Promise<Row | undefined> {
    return this.statement(sql).get(...bindings) as Row | undefined;
  }

  async close(): Promise<void> {
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
