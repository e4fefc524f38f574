import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/commands';
import { createResellerModule } from '../../src/module';
import { TEST_MASTER_KEY } from './harness';
import { createTestDatabase, type TestDatabase } from './test-database';

export interface CliResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
  /** stdout parsed as JSON (every command prints JSON). */
  json<T = any>(): T;
}

const sink = () => {
  const chunks: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      chunks.push(String(chunk));
      done();
    },
  });
  return { stream, text: () => chunks.join('') };
};

/** Runs `reseller-admin …` in-process with the given environment. */
export async function cli(env: NodeJS.ProcessEnv, ...argv: string[]): Promise<CliResult> {
  const out = sink();
  const err = sink();
  const code = await runCli(argv, { stdout: out.stream, stderr: err.stream, env });
  return { code, stdout: out.text(), stderr: err.text(), json: () => JSON.parse(out.text()) };
}

/** A fresh test database with the schema migrated and nothing in it, for CLI tests that set up the rest themselves. */
export async function migratedTestDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  const module = await createResellerModule({
    database: db.url,
    settings: { masterKey: TEST_MASTER_KEY, logLevel: 'silent' },
  });
  try {
    await module.migrate();
  } finally {
    await module.close();
  }
  return db;
}
