import { readdirSync, readFileSync } from 'node:fs';
import { createResellerModule } from '../../src/module';
import { cpuSecondsOf } from '../../test/support/server-process';
import { createMariaDbDatabase, createSqliteDatabase } from '../../test/support/test-database';

export type Engine = 'sqlite' | 'mariadb';

/** The MariaDB server the benchmarks use (the tests' default): BENCH_MARIADB_URL, else TEST_MARIADB_URL. */
export const MARIADB_SERVER = (
  process.env.BENCH_MARIADB_URL ??
  process.env.TEST_MARIADB_URL ??
  'mysql://root@127.0.0.1:3306'
).replace(/\/+$/, '');

export interface BenchDatabase {
  readonly engine: Engine;
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one benchmark: a SQLite file in a temporary folder, or a new MariaDB database. */
export async function freshDatabase(engine: Engine, label: string): Promise<BenchDatabase> {
  const database =
    engine === 'sqlite'
      ? createSqliteDatabase(`bench-${label}-`, 'bench.sqlite')
      : await createMariaDbDatabase(
          MARIADB_SERVER,
          `bench_${label.replace(/\W/g, '_')}`,
          (error) =>
            new Error(
              `MariaDB is unreachable at ${MARIADB_SERVER} (set BENCH_MARIADB_URL, or BENCH_ENGINES=sqlite): ${error.message}`,
            ),
        );
  return { engine, ...database };
}

/**
 * The one reseller the read benchmarks authenticate as (group `bench`, 123.45 credit), made with
 * the module on the benchmark's database and closed again before the servers start.
 */
export async function seedReadsReseller(
  url: string,
  masterKey: string,
  email: string,
): Promise<{ resellerId: string; apiKey: string }> {
  const seed = await createResellerModule({ database: url, settings: { masterKey, logLevel: 'silent' } });
  await seed.migrate();
  await seed.services.resellers.createGroup('bench');
  const { reseller, apiKey } = await seed.services.resellers.create(email, 'bench', 123_45);
  await seed.close();
  return { resellerId: reseller.id, apiKey };
}

/** BENCH_ENGINES=sqlite,mariadb (default both). */
export function enginesFromEnv(fallback: readonly Engine[] = ['sqlite', 'mariadb']): Engine[] {
  const given = process.env.BENCH_ENGINES?.split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (!given || given.length === 0) return [...fallback];
  for (const e of given)
    if (e !== 'sqlite' && e !== 'mariadb') throw new Error(`BENCH_ENGINES: unknown engine "${e}" (sqlite, mariadb)`);
  return given as Engine[];
}

/**
 * CPU seconds (user + system) of the MariaDB server used so far, when it runs on this machine
 * (a `mariadbd` or `mysqld` process readable in /proc): on a shared machine what MariaDB spends
 * for a server is taken from every other process. Undefined when there is no such process.
 */
export function databaseCpuSeconds(engine: Engine): (() => number) | undefined {
  if (engine !== 'mariadb') return undefined;
  let pids: string[];
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return undefined;
  }
  for (const pid of pids) {
    let command: string;
    try {
      command = readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
    } catch {
      continue;
    }
    if (command === 'mariadbd' || command === 'mysqld') {
      const found = Number(pid);
      return Number.isNaN(cpuSecondsOf(found)) ? undefined : () => cpuSecondsOf(found);
    }
  }
  return undefined;
}

/** What a wait for a quiet database saw. */
export interface QuietWait {
  readonly waitedMs: number;
  /** False when it gave up: MariaDB was still busy (`busy` says with what). */
  readonly quiet: boolean;
  readonly busy: string;
}

/**
 * Waits until the local MariaDB has settled after a load: its CPU under `cpuShare` of a core over
 * half a second, and InnoDB's purge caught up (its history list under `historyBelow` undo logs),
 * for at most `maxSeconds`. A load's writes leave MariaDB work to do after the last statement
 * (purging the old versions of updated rows, flushing pages); started at once, the next server's
 * round would pay for it on the same cores.
 */
export async function databaseQuiet(
  db: { raw(sql: string): PromiseLike<unknown> },
  cpuSeconds: () => number,
  options: { maxSeconds?: number; cpuShare?: number; historyBelow?: number } = {},
): Promise<QuietWait> {
  const { maxSeconds = 60, cpuShare = 0.1, historyBelow = 1000 } = options;
  const started = Date.now();
  let busy = '';
  for (;;) {
    const cpuBefore = cpuSeconds();
    const windowStart = Date.now();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const share = (cpuSeconds() - cpuBefore) / ((Date.now() - windowStart) / 1000);
    const [rows] = (await db.raw(
      "SELECT `count` FROM information_schema.INNODB_METRICS WHERE name = 'trx_rseg_history_len'",
    )) as [Array<{ count: number | string }>];
    const history = Number(rows[0]?.count ?? 0);
    busy = `CPU ${(share * 100).toFixed(0)} % of a core, history list ${history}`;
    const waitedMs = Date.now() - started;
    if (share < cpuShare && history < historyBelow) return { waitedMs, quiet: true, busy };
    if (waitedMs > maxSeconds * 1000) return { waitedMs, quiet: false, busy };
  }
}
