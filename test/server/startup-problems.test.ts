import { execFile } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
import { type LoggingServer, startLoggingServer } from '../support/server-process';
import { TEST_ENGINE } from '../support/test-database';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);
const MARIADB_SERVER = process.env.TEST_MARIADB_URL ?? 'mysql://root@127.0.0.1:3306';
const describeOnMariaDb = TEST_ENGINE === 'mariadb' ? describe : describe.skip;

describeOnMariaDb('the server started on a MariaDB database that does not exist', () => {
  it('exits 1 saying what to run, without a stack trace', async () => {
    const name = `reseller_missing_${Date.now().toString(36)}`;
    const failed = await run(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: `${MARIADB_SERVER}/${name}`,
        MASTER_KEY: TEST_MASTER_KEY,
        PORT: '0',
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        CONFIG_FILE: '',
      },
      timeout: 60_000,
    }).then(
      () => undefined,
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stderr).toContain(`the database "${name}" does not exist on 127.0.0.1:3306 (DATABASE_URL).`);
    expect(failed?.stderr).toContain(`CREATE DATABASE \`${name}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_unicode_ci;`);
    expect(`${failed?.stdout}${failed?.stderr}`).not.toMatch(/\n\s+at /);
  }, 90_000);
});

describe('the server started with a TLD on a registrar plugin that is not installed', () => {
  let h: Harness | undefined;
  let server: LoggingServer | undefined;
  afterAll(async () => {
    await server?.kill();
    await h?.close();
  });

  it('logs an error naming the plugin and its TLDs, and keeps serving', async () => {
    h = await startHarness();
    await h.module.knex('tlds').update({ registrar: 'gone' }); // a plugin folder since removed
    server = startLoggingServer({ DATABASE_URL: h.databaseUrl, MASTER_KEY: TEST_MASTER_KEY, BACKGROUND_JOBS: 'false' });
    await server.listening;
    const problem = 'plugin "gone" is not installed, but TLDs use it: .com, .net, .org';
    expect(server.lines().find((l) => l.level === 50)).toMatchObject({
      plugins: problem,
      msg: `not ready until this is fixed (/readyz answers 503): ${problem}`,
    });
  }, 90_000);
});
