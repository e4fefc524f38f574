import { execFile, spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { promisify } from 'node:util';
import { startHarness, TEST_MASTER_KEY, type Harness } from '../support/harness';
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
  let child: ChildProcess | undefined;
  afterAll(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    await h?.close();
  });

  it('logs an error naming the plugin and its TLDs, and keeps serving', async () => {
    h = await startHarness();
    await h.module.knex('tlds').update({ registrar: 'gone' }); // a plugin folder since removed
    // The server itself is the child (no tsx wrapper process), so that killing it leaves nothing behind.
    child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: h.databaseUrl,
        MASTER_KEY: TEST_MASTER_KEY,
        PORT: '0',
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        BACKGROUND_JOBS: 'false',
        CONFIG_FILE: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    const lines = () =>
      stdout
        .split('\n')
        .slice(0, -1) // the last piece may be a line still being written
        .filter((line) => line.startsWith('{'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    const listening = new Promise<void>((resolve, reject) => {
      child!.stdout!.on('data', (chunk) => {
        stdout += String(chunk);
        if (lines().some((l) => l.msg === 'domain reseller API listening')) resolve();
      });
      child!.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${stdout}`)));
    });
    await listening;
    const problem = 'plugin "gone" is not installed, but TLDs use it: .com, .net, .org';
    expect(lines().find((l) => l.level === 50)).toMatchObject({
      plugins: problem,
      msg: `not ready until this is fixed (/readyz answers 503): ${problem}`,
    });
  }, 90_000);
});
