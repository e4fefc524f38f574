import { chmodSync, closeSync, existsSync, mkdirSync, openSync } from 'node:fs';
import path from 'node:path';
import knex, { type Knex } from 'knex';
import type { Logger } from '../../core/common/logger';
import { DEFAULT_DATABASE_URL } from '../../config/settings';
import type { PoolOptions } from 'mysql2';

import type { DatabaseKind } from './database-kind';

export { databaseKind, type DatabaseKind } from './database-kind';

export interface DatabaseTarget {
  readonly kind: DatabaseKind;
  /** File path for SQLite (or ":memory:"), the URL for MySQL/MariaDB. */
  readonly location: string;
}

/** Understands `sqlite:<relative or absolute path>`, `sqlite::memory:` and `mysql://` / `mariadb://` URLs. */
export function parseDatabaseUrl(url: string, cwd = process.cwd()): DatabaseTarget {
  const text = url.trim();
  if (text.startsWith('sqlite:')) {
    let file = text.slice('sqlite:'.length);
    if (file.startsWith('//')) file = file.slice(2);
    if (file === '') throw new Error('DATABASE_URL: sqlite: needs a file path, like sqlite:./data/reseller.sqlite');
    return { kind: 'sqlite', location: file === ':memory:' ? file : path.resolve(cwd, file) };
  }
  if (/^(mysql|mariadb):\/\//.test(text)) {
    return { kind: 'mysql', location: text.replace(/^mariadb:/, 'mysql:') };
  }
  throw new Error('DATABASE_URL must start with sqlite: or mysql:// (got something else)');
}

export interface ConnectOptions {
  readonly poolMax?: number;
  readonly sqliteBusyTimeoutMs?: number;
  readonly logger?: Logger;
}

/** knex prints to the console by default; its messages go to our logger instead. */
function knexLog(logger: Logger | undefined): Knex.Config['log'] {
  const quiet = (message: unknown) => {
    // Another process holding the migration lock is expected: migrateLatest waits for it.
    const text = String(message);
    if (/already locked|release the lock manually/.test(text)) return;
    // The first line says what happened; knex appends the driver's stack trace to some (a failed connection).
    logger?.warn({ knex: text.split('\n')[0] }, 'database');
  };
  return { warn: quiet, error: quiet, deprecate: quiet, debug: () => undefined };
}

interface SqliteConnection {
  pragma(sql: string): unknown;
}

/**
 * mysql2's connection options from a `mysql://` URL, the same for knex's pool and the hot-path
 * pool: utf8mb4; dates stay text and BIGINT a JS number (no timezone or float surprises).
 */
export function mysqlConnectionOptions(location: string): PoolOptions {
  const url = new URL(location);
  return {
    host: url.hostname,
    port: url.port ? Number(url.port) : 3306,
    user: decodeURIComponent(url.username),
    password: decodeURIComponent(url.password),
    database: decodeURIComponent(url.pathname.replace(/^\//, '')),
    charset: 'utf8mb4',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: false,
  };
}

/**
 * The SQLite file holds contacts, sealed API keys and the ledger: a folder the server creates is
 * 0700 and a database file it creates is 0600, whatever the umask (chmod after creating, since the
 * umask only ever takes bits away from a mode asked for). SQLite gives the -wal and -shm files the
 * database file's mode. Existing folders and files keep the mode their owner gave them. Only the
 * embedded default's folder (./data) is created: any other path's folder must exist (a typo in
 * DATABASE_URL must not leave a new folder and an empty database somewhere).
 */
function createPrivately(file: string, mayCreateFolder: boolean): void {
  const folder = path.dirname(file);
  if (!existsSync(folder)) {
    if (!mayCreateFolder)
      throw new Error(
        `DATABASE_URL: the folder ${folder} does not exist: create it (mkdir -p ${folder}, owned by the user ` +
          'the server runs as, mode 0700) or correct the path; only the embedded default ./data is created',
      );
    mkdirSync(folder, { recursive: true, mode: 0o700 });
    chmodSync(folder, 0o700);
  }
  try {
    closeSync(openSync(file, 'wx', 0o600));
    chmodSync(file, 0o600);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
  }
}

/** Whether a SQLite file lies in the embedded default's folder (that of DEFAULT_DATABASE_URL, `./data` of `cwd`). */
export function isInEmbeddedDefaultFolder(target: DatabaseTarget, cwd = process.cwd()): boolean {
  const embedded = parseDatabaseUrl(DEFAULT_DATABASE_URL, cwd);
  return target.kind === 'sqlite' && path.dirname(target.location) === path.dirname(embedded.location);
}

export function connectDatabase(target: DatabaseTarget, options: ConnectOptions = {}): Knex {
  if (target.kind === 'sqlite') {
    if (target.location !== ':memory:') createPrivately(target.location, isInEmbeddedDefaultFolder(target));
    const busyTimeout = options.sqliteBusyTimeoutMs ?? 5000;
    return knex({
      client: 'better-sqlite3',
      connection: { filename: target.location },
      useNullAsDefault: true,
      // A failed query's message keeps its placeholders, not its values (see the MySQL config below).
      compileSqlOnError: false,
      log: knexLog(options.logger),
      pool: {
        min: 1,
        max: 1,
        afterCreate(conn: SqliteConnection, done: (err: Error | null, conn: unknown) => void) {
          // WAL lets the CLI read while the server writes; the busy timeout makes writers queue instead of failing.
          conn.pragma('journal_mode = WAL');
          conn.pragma(`busy_timeout = ${busyTimeout}`);
          conn.pragma('foreign_keys = ON');
          done(null, conn);
        },
      },
    });
  }
  return knex({
    client: 'mysql2',
    log: knexLog(options.logger),
    // knex writes a failed query's values into the error message, and unexpected errors are logged:
    // contacts, idempotency keys or sealed keys would reach the log. The SQL with its placeholders says enough.
    compileSqlOnError: false,
    connection: mysqlConnectionOptions(target.location) as Knex.MySql2ConnectionConfig,
    pool: { min: 0, max: options.poolMax ?? 10 },
  });
}
