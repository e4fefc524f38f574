import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';

export type Engine = 'sqlite' | 'mariadb';

/** The MariaDB server the benchmarks use (the tests' default): BENCH_MARIADB_URL, else TEST_MARIADB_URL. */
export const MARIADB_SERVER = (process.env.BENCH_MARIADB_URL ?? process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306').replace(/\/+$/, '');

export interface BenchDatabase {
  readonly engine: Engine;
  readonly url: string;
  drop(): Promise<void>;
}

/** A fresh, empty database for one benchmark: a SQLite file in a temporary folder, or a new MariaDB database. */
export async function freshDatabase(engine: Engine, label: string): Promise<BenchDatabase> {
  if (engine === 'sqlite') {
    const dir = mkdtempSync(path.join(os.tmpdir(), `bench-${label}-`));
    return { engine, url: `sqlite:${path.join(dir, 'bench.sqlite')}`, drop: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `bench_${label.replace(/\W/g, '_')}_${randomBytes(4).toString('hex')}`;
  const admin = knex({ client: 'mysql2', connection: MARIADB_SERVER });
  try {
    await admin.raw(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci`);
  } catch (error) {
    throw new Error(`MariaDB is unreachable at ${MARIADB_SERVER} (set BENCH_MARIADB_URL, or BENCH_ENGINES=sqlite): ${(error as Error).message}`);
  } finally {
    await admin.destroy();
  }
  return {
    engine,
    url: `${MARIADB_SERVER}/${name}`,
    async drop() {
      const cleanup = knex({ client: 'mysql2', connection: MARIADB_SERVER });
      try {
        await cleanup.raw(`DROP DATABASE IF EXISTS \`${name}\``);
      } finally {
        await cleanup.destroy();
      }
    },
  };
}

/** BENCH_ENGINES=sqlite,mariadb (default both). */
export function enginesFromEnv(fallback: readonly Engine[] = ['sqlite', 'mariadb']): Engine[] {
  const given = process.env.BENCH_ENGINES?.split(',').map((s) => s.trim()).filter(Boolean);
  if (!given || given.length === 0) return [...fallback];
  for (const e of given) if (e !== 'sqlite' && e !== 'mariadb') throw new Error(`BENCH_ENGINES: unknown engine "${e}" (sqlite, mariadb)`);
  return given as Engine[];
}
