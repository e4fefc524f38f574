import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import net from 'node:net';
import { freePort } from '../support/server-process';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** Settings a developer's shell or the CI run may carry; `npm start` on a fresh clone has none of them. */
const CONFIGURATION = [
  'DATABASE_URL',
  'MASTER_KEY',
  'MASTER_KEY_FILE',
  'PLUGINS_DIR',
  'BASE_PATH',
  'LOG_LEVEL',
  'SEED_DEMO',
  'BACKGROUND_JOBS',
  'TEST_DB',
];

/**
 * The README's first line: `npm start` on a fresh clone starts a working server on embedded
 * SQLite with a demo reseller and prints how to call it. Started here as `npm start` starts it
 * (tsx src/main.ts) in an empty working folder with none of the configuration set. Both printed
 * lines are run as printed: the one that needs nothing but node, in `sh`, always; the curl line,
 * in bash with openssl, base64 and curl, wherever those are installed (a machine with Node alone
 * has none of them, and must still pass).
 */
describe('npm start on a fresh clone', () => {
  let cwd: string;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'quick-start-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it('prints a demo reseller and a command that answers its balance, and keeps its data under ./data', async () => {
    const port = await freePort();
    // METRICS_PORT=0: test servers run side by side, and the default metrics port is one for all of them.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), METRICS_PORT: '0', HOST: '127.0.0.1' };
    for (const name of CONFIGURATION) delete env[name];
    child = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'src/main.ts')], {
      cwd,
      env,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    const lineWith = (marker: string) =>
      stderr
        .split('\n')
        .find((l) => l.includes(marker))
        ?.trim();
    const printed = new Promise<{ curl: string; node: string }>((resolve, reject) => {
      child!.stderr!.on('data', (chunk) => {
        stderr += String(chunk);
        const curl = lineWith('curl ');
        const node = lineWith('node -e ');
        if (curl && node) resolve({ curl, node });
      });
      child!.once('exit', (code) =>
        reject(new Error(`the server exited with ${code} before printing how to call it:\n${stderr}`)),
      );
    });
    const tryIt = await printed;

    expect(stderr).toMatch(/username: \S+@\S+/);
    expect(stderr).toMatch(/API key: {2}\S{20,}/);
    const withNode = { ...process.env, PATH: `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}` };
    const { stdout: byNode } = await run('sh', ['-c', tryIt.node], { timeout: 30_000, env: withNode });
    expect(JSON.parse(byNode)).toBe('1000.00');
    if (await installed('bash', 'openssl', 'base64', 'curl', 'sed', 'tr')) {
      const { stdout: byCurl } = await run('bash', ['-c', tryIt.curl], { timeout: 30_000 });
      expect(JSON.parse(byCurl)).toBe('1000.00');
    }

    // The database and the master key it is sealed under live in ./data of the working folder; the key file is private.
    expect(existsSync(path.join(cwd, 'data', 'reseller.sqlite'))).toBe(true);
    expect(statSync(path.join(cwd, 'data', 'master.key')).mode & 0o077).toBe(0);
    // So are the folder and the database (contacts, sealed keys, the ledger).
    expect(statSync(path.join(cwd, 'data')).mode & 0o777).toBe(0o700);
    expect(statSync(path.join(cwd, 'data', 'reseller.sqlite')).mode & 0o777).toBe(0o600);
  }, 120_000);
});

/**
 * Issue 31, item 7: with the port taken, the first start used to migrate and create the demo
 * reseller, then fail to listen; the next start found a reseller and printed no key at all.
 */
describe('npm start on a fresh clone whose port is taken', () => {
  let cwd: string;
  let blocker: net.Server | undefined;
  let child: ChildProcess | undefined;
  beforeAll(() => {
    cwd = mkdtempSync(path.join(os.tmpdir(), 'quick-start-taken-'));
  });
  afterAll(async () => {
    blocker?.close();
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    rmSync(cwd, { recursive: true, force: true });
  });

  it('fails to listen without spending the demo key, and the next start prints it', async () => {
    const port = await freePort();
    blocker = net.createServer();
    await new Promise<void>((resolve) => blocker!.listen(port, '127.0.0.1', resolve));
    // METRICS_PORT=0: test servers run side by side, and the default metrics port is one for all of them.
    const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), METRICS_PORT: '0', HOST: '127.0.0.1' };
    for (const name of CONFIGURATION) delete env[name];
    const start = () =>
      spawn(path.join(ROOT, 'node_modules/.bin/tsx'), [path.join(ROOT, 'src/main.ts')], {
        cwd,
        env,
        stdio: ['ignore', 'ignore', 'pipe'],
      });

    const first = start();
    let firstErr = '';
    first.stderr!.on('data', (chunk) => {
      firstErr += String(chunk);
    });
    const code = await new Promise<number | null>((resolve) => first.once('exit', resolve));
    expect(code).toBe(1);
    expect(firstErr).toContain('EADDRINUSE');
    expect(firstErr).not.toContain('API key:');
    await new Promise<void>((resolve) => blocker!.close(() => resolve()));
    blocker = undefined;

    child = start();
    let stderr = '';
    const key = await new Promise<string>((resolve, reject) => {
      child!.stderr!.on('data', (chunk) => {
        stderr += String(chunk);
        const found = /API key: {2}(\S{20,})/.exec(stderr);
        if (found) resolve(found[1]!);
      });
      child!.once('exit', (exit) => reject(new Error(`the second start exited with ${exit}:\n${stderr}`)));
    });
    expect(key.length).toBeGreaterThan(20);
  }, 120_000);
});

/** Whether every one of these commands is on the PATH. */
async function installed(...commands: string[]): Promise<boolean> {
  try {
    await run('sh', ['-c', commands.map((c) => `command -v ${c} >/dev/null`).join(' && ')]);
    return true;
  } catch {
    return false;
  }
}
