import { Writable } from 'node:stream';
import { runCli } from '../../src/cli/commands';
import { createResellerModule } from '../../src/module';
import { type Harness, type HarnessOptions, startHarness, TEST_MASTER_KEY } from './harness';
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

/** The environment `reseller-admin` needs to open the harness's database, quietly; `extra` adds or replaces variables. */
export function cliEnv(h: Pick<Harness, 'databaseUrl'>, extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return { DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, LOG_LEVEL: 'silent', ...extra };
}

/**
 * A harness started before the enclosing describe's tests and closed after them, with the CLI's
 * environment for its database: for CLI tests that run commands against a served module.
 * Read `h` and `env` inside hooks and tests (they exist once `beforeAll` has run).
 */
export function harnessForCli(options: HarnessOptions = {}): { readonly h: Harness; readonly env: NodeJS.ProcessEnv } {
  let harness: Harness | undefined;
  beforeAll(async () => {
    harness = await startHarness(options);
  });
  afterAll(async () => {
    await harness?.close();
  });
  const started = () => {
    if (!harness) throw new Error('harnessForCli: the harness starts in beforeAll');
    return harness;
  };
  return {
    get h() {
      return started();
    },
    get env() {
      return cliEnv(started());
    },
  };
}
