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
