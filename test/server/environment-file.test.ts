import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** The environment file docs/operations.md shows, exactly as shown. */
function documentedEnvironmentFile(): string {
  const page = readFileSync(path.join(ROOT, 'docs/operations.md'), 'utf8');
  const found = /An environment file, for example `\/etc\/reseller\/env`[^\n]*\n\n```sh\n([\s\S]*?)\n```/.exec(page);
  if (!found) throw new Error('docs/operations.md no longer shows the environment file');
  return `${found[1]}\n`;
}

/**
 * The file as systemd's `EnvironmentFile=` reads it (systemd.exec(5)): lines starting with # or ;
 * are comments, a value runs to the end of its line (a `#` after it is part of the value, which
 * is what broke the server), surrounding whitespace is dropped, and quotes are taken off.
 */
function readAsSystemd(text: string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const eq = line.indexOf('=');
    if (eq < 0) continue;
    let value = line.slice(eq + 1).trim();
    const quoted = /^"(.*)"$|^'(.*)'$/.exec(value);
    if (quoted) value = quoted[1] ?? quoted[2] ?? '';
    env[line.slice(0, eq).trim()] = value;
  }
  return env;
}

/** Issue 31, item 2: the documented environment file, beside the documented systemd unit. */
describe("docs/operations.md's environment file", () => {
  let db: TestDatabase;
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
    dir = mkdtempSync(path.join(os.tmpdir(), 'environment-file-'));
  });
  afterAll(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child!.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
    await db.drop();
  });

  /** The file with its two placeholders (the database and the generated key) filled in, nothing else touched. */
  const filledIn = () =>
    documentedEnvironmentFile()
      .replace(/^DATABASE_URL=.*$/m, `DATABASE_URL=${db.url}`)
      .replace(/^MASTER_KEY=.*$/m, `MASTER_KEY=${TEST_MASTER_KEY}`);

  it('means the same to systemd as to `set -a; . file` in sh', async () => {
    const file = path.join(dir, 'env');
    writeFileSync(file, filledIn());
    const bySystemd = readAsSystemd(filledIn());
    const names = Object.keys(bySystemd);
    const { stdout } = await run('sh', [
      '-c',
      `set -a; . "$0"; set +a; node -e 'console.log(JSON.stringify(Object.fromEntries(process.argv.slice(1).map((n) => [n, process.env[n]]))))' ${names.join(' ')}`,
      file,
    ]);
    expect(JSON.parse(stdout)).toEqual(bySystemd);
  });

  it('starts the server as systemd passes it, and the server is ready', async () => {
    const env: NodeJS.ProcessEnv = {
      PATH: process.env.PATH,
      ...readAsSystemd(filledIn()),
      // What the unit adds (Environment=PORT=%i): a free port here.
      PORT: '0',
      METRICS_PORT: '0',
      BACKGROUND_JOBS: 'false',
    };
    child = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'src/main.ts')], {
      cwd: ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stderr!.on('data', (chunk) => {
      output += String(chunk);
    });
    const port = await new Promise<number>((resolve, reject) => {
      child!.stdout!.on('data', (chunk) => {
        output += String(chunk);
        const found = /"port":(\d+),[^\n]*"msg":"domain reseller API listening"/.exec(output);
        if (found) resolve(Number(found[1]));
      });
      child!.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
    const reply = await request(`http://127.0.0.1:${port}`).get('/readyz');
    expect(reply.status).toBe(200);
  }, 90_000);
});
