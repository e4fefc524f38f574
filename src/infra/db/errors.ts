/** A unique or primary key violation, on SQLite or MariaDB/MySQL. */
export function isUniqueViolation(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  return (
    e?.code === 'SQLITE_CONSTRAINT_UNIQUE' ||
    e?.code === 'SQLITE_CONSTRAINT_PRIMARYKEY' ||
    e?.code === 'ER_DUP_ENTRY' ||
    e?.errno === 1062
  );
}

/**
 * A transaction the database rolled back to break a deadlock (MariaDB), or that SQLite could not
 * start or upgrade because another process writes (SQLITE_BUSY, SQLITE_BUSY_SNAPSHOT in WAL mode):
 * nothing was written, so it is safe to run again.
 */
export function isRetryableTransactionError(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  return (
    e?.errno === 1213 ||
    e?.code === 'ER_LOCK_DEADLOCK' ||
    (typeof e?.code === 'string' && e.code.startsWith('SQLITE_BUSY'))
  );
}

/**
 * A statement error after which the transaction is no longer the one the work built, so it must
 * never be committed:
 * - MariaDB/MySQL rolled the whole transaction back, not only the statement: a deadlock (on Galera
 *   also a conflict with a write set another node committed, reported on whatever statement the
 *   transaction sends next, `SELECT version()` included), or the connection lost. Statements sent
 *   after it are no longer part of the transaction: with autocommit off they start a new one;
 * - a lock wait timeout (isLockWaitTimeout): the statement did not happen. With the server's
 *   default (`innodb_rollback_on_timeout=OFF`) the rest of the transaction is still open, with ON
 *   it was rolled back like a deadlock; either way what follows is not what the work meant to commit.
 */
export function endsTransaction(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  return e?.errno === 1213 || e?.code === 'ER_LOCK_DEADLOCK' || isLockWaitTimeout(error) || isConnectionLost(error);
}

/**
 * MariaDB/MySQL error 1205: a statement waited longer than `innodb_lock_wait_timeout` (50 s by
 * default) for a row lock another transaction held; on Galera also a read that waited longer than
 * `repl.causal_read_timeout` (`wsrep_sync_wait`) for its node to catch up with the cluster. The
 * statement did not happen and the unit of work rolls its transaction back. Not run again: the wait
 * has already cost the request its time (docs/operations.md, "When the database goes away").
 */
export function isLockWaitTimeout(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown };
  return e?.errno === 1205 || e?.code === 'ER_LOCK_WAIT_TIMEOUT';
}

/**
 * Why the server (or the CLI) cannot use the configured MariaDB/MySQL database, said so that the
 * operator knows what to do, without a stack trace; undefined for any other error.
 */
export function databaseStartupProblem(error: unknown, databaseUrl: string): string | undefined {
  if (!/^(mysql|mariadb):\/\//.test(databaseUrl.trim())) return undefined;
  const e = error as { code?: unknown; errno?: unknown };
  const url = new URL(databaseUrl.trim());
  const server = `${url.hostname}:${url.port || 3306}`;
  const name = decodeURIComponent(url.pathname.replace(/^\//, ''));
  const create = `CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`;
  if (e?.code === 'ER_BAD_DB_ERROR' || e?.errno === 1049)
    return [
      `the database "${name}" does not exist on ${server} (DATABASE_URL).`,
      'Create it as a user allowed to, then start again; the tables are created on start:',
      `  ${create}`,
      'docs/operations.md (section 2, the database) also creates a user for it and its grants.',
    ].join('\n');
  if (e?.code === 'ER_NO_DB_ERROR' || e?.errno === 1046)
    return `DATABASE_URL names no database on ${server}: add it to the path, like mysql://user:password@${server}/reseller`;
  if (e?.code === 'ER_ACCESS_DENIED_ERROR' || e?.errno === 1045)
    return `MariaDB at ${server} refused the user "${decodeURIComponent(url.username)}" (DATABASE_URL): check the user name, the password and the grants`;
  if (e?.code === 'ER_DBACCESS_DENIED_ERROR' || e?.errno === 1044)
    return `the user "${decodeURIComponent(url.username)}" may not use the database "${name}" on ${server}: GRANT ALL PRIVILEGES ON \`${name}\`.* TO it`;
  if (e?.code === 'ECONNREFUSED' || e?.code === 'ENOTFOUND' || e?.code === 'ETIMEDOUT')
    return `cannot reach MariaDB at ${server} (DATABASE_URL): ${String(e.code)}`;
  return undefined;
}

/** MySQL/MariaDB client and server codes of a connection that died under a statement. */
const LOST_CODES = new Set([
  'PROTOCOL_CONNECTION_LOST',
  'ECONNRESET',
  'EPIPE',
  'ER_CONNECTION_KILLED',
  'ER_SERVER_SHUTDOWN',
  'ER_CLIENT_INTERACTION_TIMEOUT',
]);
/** 1053 server shutdown, 1927 connection killed, 2006 server gone away, 2013 lost during a query, 4031 idle timeout. */
const LOST_ERRNOS = new Set([1053, 1927, 2006, 2013, 4031]);

/**
 * The statement's connection died (killed, server restarted, network cut): what the transaction
 * did is gone with it, unless the connection died during its COMMIT.
 */
export function isConnectionLost(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; fatal?: unknown; message?: unknown };
  if (typeof e?.code === 'string' && LOST_CODES.has(e.code)) return true;
  if (typeof e?.errno === 'number' && LOST_ERRNOS.has(e.errno)) return true;
  // mysql2 refuses a statement on a connection it already knows to be dead with this message and no code.
  return typeof e?.message === 'string' && e.message.includes('connection is in closed state');
}

/** Codes of a database that cannot be reached at all, or (Galera) a node not serving: 1047 "WSREP has not yet prepared node". */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENOTFOUND', 'ER_UNKNOWN_COM_ERROR']);

/**
 * The database does not answer: a connection lost, refused or not had from the pool in time
 * (knex's acquire timeout), or a Galera node that left the cluster's primary component. The
 * client is told to retry (503), not that something broke (500).
 */
export function isDatabaseUnavailable(error: unknown): boolean {
  const e = error as { code?: unknown; errno?: unknown; name?: unknown };
  return (
    isConnectionLost(error) ||
    (typeof e?.code === 'string' && UNREACHABLE_CODES.has(e.code)) ||
    e?.errno === 1047 ||
    e?.name === 'KnexTimeoutError'
  );
}

/** Why a request could not be served because of the database, when that is why: what both the API and the pages say. */
export type DatabaseTrouble = 'unavailable' | 'lock-wait' | 'busy';

/** The database trouble an error is (unavailable, a lock wait timeout, a deadlock after every retry), or undefined. */
export function databaseTrouble(error: unknown): DatabaseTrouble | undefined {
  if (isDatabaseUnavailable(error)) return 'unavailable';
  if (isLockWaitTimeout(error)) return 'lock-wait';
  if (isRetryableTransactionError(error)) return 'busy';
  return undefined;
}

/**
 * The driver's code of an error the database (or its connection) raised, like `SQLITE_BUSY` or
 * `ER_LOCK_DEADLOCK`: said to a person instead of the driver's message, which carries the SQL.
 * Undefined for any other error.
 */
export function databaseErrorCode(error: unknown): string | undefined {
  const e = error as { code?: unknown; errno?: unknown; sqlMessage?: unknown };
  if (typeof e?.code === 'string' && /^(SQLITE_|ER_|PROTOCOL_)/.test(e.code)) return e.code;
  if (isDatabaseUnavailable(error)) return typeof e?.code === 'string' ? e.code : 'database unavailable';
  if (typeof e?.errno === 'number' && typeof e?.sqlMessage === 'string') return `error ${e.errno}`;
  return undefined;
}
