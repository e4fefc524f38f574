import type { Knex } from 'knex';
import { type Db, onConnection } from './db';
import { createPool, type ExecuteValues, type Pool, type PoolConnection, type PoolOptions } from 'mysql2';
import { type DatabaseTarget, mysqlConnectionOptions } from './connect';
import { rawRows } from './database-kind';
import { databaseAnswers } from './readiness';
import { endsTransaction } from './errors';

/**
 * The module's ways to its database beside knex's builder, chosen once when the module is composed
 * (`openPools`): each is the driver's own connection(s) where knex's per-query machinery (builder,
 * compiler, runner, pool queue, transaction object) costs more than the work itself, else knex.
 *
 * - `reads`: single-row reads on the request hot path (authentication's one statement; ADR 12).
 *   SQLite file: a better-sqlite3 connection of the same file opened here, for queries only,
 *   answering synchronously from the statements it prepared before. MySQL/MariaDB: a small mysql2
 *   pool of its own; `execute` prepares each SQL text once per connection and reuses it.
 * - `writes`: one statement that writes, committed at once (the API log's batch insert, the plugin
 *   store): on MySQL/MariaDB the reads' pool with the driver's own `query` (ADR 14).
 * - `transactions`: every unit of work's transaction, on MySQL/MariaDB on a pool of its own in
 *   manual-commit mode (ADR 14), unless the ledger is the host's: a host's ledger is promised the
 *   knex transaction (docs/embedding.md).
 *
 * A `:memory:` database or a knex instance the host owns gets knex for all three.
 *
 * What a read sees: it is its own statement outside any transaction, so it sees exactly what is
 * committed when it runs (WAL on SQLite: readers never wait for the writer; InnoDB: a consistent
 * read per statement). A key rotated or a reseller suspended by any process is seen by the next
 * request; another flow's uncommitted writes never are. Inside a unit of work the repositories
 * are given the transaction instead of a reader, so a transaction reads its own writes.
 */
export interface DatabasePools {
  readonly reads: HotReads;
  readonly writes: DirectWrites;
  readonly transactions: Transactions;
  /** "ok", or why one of the ways does not answer a trivial statement within two seconds (/readyz). */
  check(): Promise<string>;
  /** Closes the connections opened here (never knex itself). */
  close(): Promise<void>;
}

export interface HotReads {
  /** The first row of `sql` (plain SQL with `?` placeholders), or undefined. */
  first<Row>(sql: string, bindings: readonly unknown[]): Promise<Row | undefined>;
}

/** One statement that writes, committed at once: not for anything that must share a transaction. */
export interface DirectWrites {
  write(sql: string, bindings: readonly unknown[]): Promise<void>;
  /**
   * The same, for a statement whose text is sent again and again (the API log's full batch): on
   * MySQL/MariaDB prepared once per connection and executed with its values sent apart, so the
   * server does not parse thousands of literals each time; elsewhere `write`. Only for a few
   * fixed texts: each stays prepared on every connection of the pool.
   */
  writeRepeated(sql: string, bindings: readonly unknown[]): Promise<void>;
}

/**
 * A transaction's last statement, built but not sent: a write whose answer nobody reads (the
 * outbox's INSERT, ADR 15). Built by knex like any other (a query builder or raw statement).
 */
export interface LastStatement extends PromiseLike<unknown> {
  toSQL(): { toNative(): { sql: string; bindings: readonly unknown[] } };
}

/**
 * One transaction around `work`: committed when it returns, rolled back when it throws.
 * `last`, asked once `work` has returned, may give the transaction's last statement: it is sent
 * with the `COMMIT` where the connection can take both in one round trip (MySQL/MariaDB's
 * transaction pool, ADR 14), else run just before it. Either way a failure of it rolls the whole
 * transaction back, as a failure inside `work` does.
 */
export interface Transactions {
  run<T>(work: (db: Db) => Promise<T>, last?: (db: Db) => LastStatement | undefined): Promise<T>;
}

export interface PoolsOptions {
  /** Connections of each MySQL/MariaDB pool, the reads' and the transactions' (in addition to knex's pool). */
  readonly poolMax?: number;
  readonly sqliteBusyTimeoutMs?: number;
  /**
   * Whether the credit ledger is the module's own (no host `ledgerFactory` port). Default true.
   * A host's ledger is promised a knex transaction, so its units of work stay on knex.
   */
  readonly ownsLedger?: boolean;
}

/** The pools for `knex`: the driver's own connections on `target` when the module opened the database, else knex. */
export function openPools(knex: Knex, target: DatabaseTarget | undefined, options: PoolsOptions = {}): DatabasePools {
  const viaKnex = knexPools(knex);
  if (target?.kind === 'mysql') {
    const connection = mysqlConnectionOptions(target.location);
    const reads = new MysqlPool(connection, options.poolMax);
    const manualCommit =
      options.ownsLedger === false ? undefined : new ManualCommitTransactions(knex, connection, options.poolMax);
    return poolsOf(knex, {
      reads,
      writes: reads,
      transactions: manualCommit ?? viaKnex.transactions,
      own: { reads: true, transactions: manualCommit !== undefined },
      close: async () => {
        await Promise.all([reads.close(), manualCommit?.close()]);
      },
    });
  }
  if (target === undefined || target.location === ':memory:') return viaKnex;
  const reads = new SqliteHotReads(target.location, options.sqliteBusyTimeoutMs ?? 5000);
  return poolsOf(knex, {
    ...viaKnex,
    reads,
    own: { reads: true, transactions: false },
    close: async () => reads.close(),
  });
}

/** Everything through knex on `db`: a knex instance the module does not own, a database in memory, tests. */
export function knexPools(db: Knex): DatabasePools {
  return poolsOf(db, {
    reads: {
      first: async <Row>(sql: string, bindings: readonly unknown[]) =>
        rawRows<Row>(db, await db.raw(sql, bindings as Knex.RawBinding[]))[0],
    },
    writes: {
      write: (sql, bindings) => knexWrite(db, sql, bindings),
      writeRepeated: (sql, bindings) => knexWrite(db, sql, bindings),
    },
    transactions: { run: (work, last) => knexTransaction(db, work, last) },
    own: { reads: false, transactions: false },
    close: async () => undefined,
  });
}

async function knexWrite(db: Knex, sql: string, bindings: readonly unknown[]): Promise<void> {
  await db.raw(sql, bindings as Knex.RawBinding[]);
}

/**
 * A knex transaction around `work`. After a statement that rolled the transaction back
 * (endsTransaction), knex's session is in autocommit and each later statement would commit on its
 * own; after a lock wait timeout the transaction lacks that statement: none is sent, even when
 * the work caught the error, and the first error is thrown (a deadlock runs the work again). The
 * work (a host's ledger too) is given the knex transaction itself, behind a proxy that only
 * refuses those statements.
 */
function knexTransaction<T>(
  db: Knex,
  work: (trx: Db) => Promise<T>,
  last?: (trx: Db) => LastStatement | undefined,
): Promise<T> {
  return db.transaction(async (trx) => {
    let ended: unknown;
    trx.on('query-error', (error: unknown) => {
      if (ended === undefined && endsTransaction(error)) ended = error;
    });
    const refuseAfterEnd = () => {
      if (ended !== undefined) throw ended;
    };
    const guarded = new Proxy(trx, {
      apply(target, thisArg, args) {
        refuseAfterEnd();
        return Reflect.apply(target, thisArg, args);
      },
      get(target, property) {
        if (property !== 'raw') return Reflect.get(target, property, target);
        return (...args: Parameters<Knex.RawBuilder>) => {
          refuseAfterEnd();
          return target.raw(...args);
        };
      },
    });
    const result = await work(guarded);
    refuseAfterEnd();
    const statement = last?.(guarded);
    if (statement !== undefined) {
      await statement;
      refuseAfterEnd();
    }
    return result;
  });
}

/** Single-row reads through `knex.raw` on `db` (a knex transaction, say). */
export function knexHotReads(db: Db): HotReads {
  return {
    first: async <Row>(sql: string, bindings: readonly unknown[]) =>
      rawRows<Row>(db, await db.raw(sql, bindings as Knex.RawBinding[]))[0],
  };
}

function poolsOf(
  knex: Knex,
  parts: Pick<DatabasePools, 'reads' | 'writes' | 'transactions' | 'close'> & {
    /** Which ways are connections of their own, asked by `check` beside knex (writes share the reads' pool). */
    readonly own: { readonly reads: boolean; readonly transactions: boolean };
  },
): DatabasePools {
  const { reads, writes, transactions, own, close } = parts;
  return {
    reads,
    writes,
    transactions,
    close,
    check: () =>
      databaseAnswers([
        () => knex.raw('select 1'),
        ...(own.reads ? [() => reads.first('select 1 as ok', [])] : []),
        ...(own.transactions ? [() => transactions.run((db) => db.raw('select 1'))] : []),
      ]),
  };
}

class MysqlPool implements HotReads, DirectWrites {
  private readonly pool: Pool;

  constructor(options: PoolOptions, poolMax = 10) {
    this.pool = createPool({ ...options, connectionLimit: poolMax });
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

  writeRepeated(sql: string, bindings: readonly unknown[]): Promise<void> {
    return new Promise((resolve, reject) => {
      this.pool.execute(sql, bindings as ExecuteValues[], (error) => (error ? reject(error) : resolve()));
    });
  }

  close(): Promise<void> {
    return endPool(this.pool);
  }
}

/**
 * Transactions on connections of a driver pool of their own in manual-commit mode
 * (`SET autocommit = 0`, sent once per connection before its first transaction): a transaction
 * begins with its first statement and ends with `COMMIT`, or `ROLLBACK` when the work throws, as
 * JDBC drivers run transactions. No `BEGIN` is sent: one round trip less per transaction (ADR 14).
 * The work is given knex bound to the connection (`onConnection`), so its statements are the ones
 * knex builds anywhere else; knex's own transaction object, which costs more than the statements of
 * a short transaction, is not made (bench/RESULTS.md). These connections run nothing else: a read
 * outside a unit of work on one would open a transaction and keep its snapshot.
 */
class ManualCommitTransactions implements Transactions {
  /** The connections known to be in manual-commit mode: only these are given work. */
  private readonly manualCommit = new WeakSet<PoolConnection>();
  private readonly pool: Pool;

  constructor(
    private readonly knex: Knex,
    options: PoolOptions,
    poolMax = 10,
  ) {
    // Several statements in one round trip: a transaction's last statement and its COMMIT (`run`),
    // a ledger's move and its entry (knex-ledger-repository.ts). Only units of work run here, and
    // their statements are built by knex with bindings.
    this.pool = createPool({ ...options, connectionLimit: poolMax, multipleStatements: true });
  }

  async run<T>(work: (db: Db) => Promise<T>, last?: (db: Db) => LastStatement | undefined): Promise<T> {
    const connection = await new Promise<PoolConnection>((resolve, reject) =>
      this.pool.getConnection((error, taken) => (error ? reject(error) : resolve(taken))),
    );
    // A statement the database answered by rolling the whole transaction back, or that timed out
    // waiting for a lock (endsTransaction), ends it even when the work caught the error and went
    // on: what ran after it is a new transaction, or one without that statement; it is rolled back
    // here and the first error is thrown (a deadlock is retried whole).
    let ended: unknown;
    const failed = (error: unknown) => {
      if (ended === undefined && endsTransaction(error)) ended = error;
    };
    // Sent through knex too, so that knex's query events and logs show the transaction's end.
    const db = onConnection(this.knex, connection, failed, { multipleStatements: true });
    let reusable = true;
    try {
      if (!this.manualCommit.has(connection)) {
        // A new connection (the pool opens them as needed, and again after one is lost).
        await db.raw('SET autocommit = 0');
        this.manualCommit.add(connection);
      }
      const result = await work(db);
      if (ended !== undefined) throw ended;
      const statement = last?.(db)?.toSQL().toNative();
      // The server runs the two in turn and stops at the first that fails: a failed last
      // statement is never followed by the COMMIT, and is rolled back below.
      if (statement === undefined) await db.raw('COMMIT');
      else await db.raw(`${statement.sql};\nCOMMIT`, statement.bindings as Knex.RawBinding[]);
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
