import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { computeToken } from '../../src/core/auth/api-token';
import { type Reply, send, waitFor } from '../support/server-process';
import { builtPackage } from '../support/built-package';

/** Settings a developer's shell or the CI run may carry; each server here gets only its own. */
const CONFIGURATION = ['DATABASE_URL', 'MASTER_KEY', 'MASTER_KEY_FILE', 'PLUGINS_DIR', 'BASE_PATH', 'CONFIG_FILE'];

interface Started {
  readonly child: ChildProcess;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  readonly port: number;
  readonly apiKey: string;
  logLines(): Array<Record<string, unknown>>;
  output(): string;
}

/**
 * Starts the built server the way a deployment does (`node dist/src/main.js`, or `npm run serve`
 * in the package folder), on a SQLite file of its own, with the demo reseller and a sandbox that
 * takes a while to answer, so that a request can be in flight when the signal comes. Each runs in a
 * process group of its own, as under a supervisor.
 */
async function start(
  dir: string,
  data: string,
  command: string,
  args: string[],
  children: ChildProcess[],
): Promise<Started> {
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    DATABASE_URL: `sqlite:${path.join(data, 'reseller.sqlite')}`,
    PORT: '0',
    METRICS_PORT: '0',
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    SEED_DEMO: 'true',
    SANDBOX_LATENCY_MS: '6000',
    BACKGROUND_JOBS: 'false',
  };
  for (const name of CONFIGURATION.filter((n) => n !== 'DATABASE_URL')) delete env[name];
  const child = spawn(command, args, { cwd: dir, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  const logLines = () =>
    stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
  const output = () => `--- stdout:\n${stdout.slice(-4000)}\n--- stderr:\n${stderr.slice(-2000)}`;
  try {
    const port = await waitFor('the listening line', async () => {
      if (child.exitCode !== null) throw new Error('exited');
      return logLines().find((l) => l.msg === 'domain reseller API listening')?.port as number | undefined;
    });
    const apiKey = await waitFor('the demo key', async () => /API key:\s+(\S+)/.exec(stderr)?.[1]);
    return { child, exited, port, apiKey, logLines, output };
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${output()}`);
  }
}

/** A search whose registrar call takes SANDBOX_LATENCY_MS, resolved once the server counts it in flight. */
async function searchInFlight(server: Started): Promise<{ reply: Promise<Reply> }> {
  const email = 'demo@reseller.test';
  const headers = {
    username: email,
    token: computeToken(email, server.apiKey, new Date()),
    'content-type': 'application/x-www-form-urlencoded',
  };
  const reply = send(server.port, 'POST', '/domains/lookup', headers, 'searchTerm=signal-test&tldsToInclude=.com');
  await waitFor('the search to be in flight', async () => {
    // Metrics are on a listener of their own (METRICS_PORT), whose scrapes are not API requests.
    const metricsPort = server.logLines().find((l) => l.msg === 'metrics listening')?.port as number;
    const metrics = await send(metricsPort, 'GET', '/metrics');
    const gauge = Number(/^reseller_http_requests_in_flight (\d+)/m.exec(metrics.body)?.[1] ?? 0);
    return gauge >= 1 ? true : undefined; // the search
  });
  return { reply };
}

async function expectGracefulStop(server: Started, inFlight: { reply: Promise<Reply> }): Promise<void> {
  try {
    const reply = await inFlight.reply;
    expect(reply.status).toBe(200);
    expect(JSON.parse(reply.body)).toEqual([expect.objectContaining({ domainName: 'signal-test.com' })]);
    expect(await server.exited).toEqual({ code: 0, signal: null });
    const messages = server.logLines().map((l) => l.msg);
    expect(messages.filter((m) => m === 'shutting down: /readyz now answers 503')).toHaveLength(1);
    expect(messages).toContain('stopped');
    expect(messages).not.toContain('second interrupt: exiting now, without waiting for the graceful shutdown');
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${server.output()}`);
  }
}

describe('the production entry (the compiled server under plain node)', () => {
  let dir: string;
  let data: string;
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    dir = await builtPackage();
    data = mkdtempSync(path.join(os.tmpdir(), 'production-entry-'));
  }, 300_000);
  afterAll(() => {
    // Each server runs in a process group of its own (detached): npm and the node it started go together.
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL');
    rmSync(data, { recursive: true, force: true });
  });

  /** The built server started by `command`, on a data folder of its own. */
  const startServer = (command: string, args: string[]) =>
    start(dir, mkdtempSync(path.join(data, 'run-')), command, args, children);

  it('finishes the request in flight and exits 0 on one SIGTERM sent to node dist/src/main.js', async () => {
    const server = await startServer(process.execPath, ['dist/src/main.js']);
    const inFlight = await searchInFlight(server);
    server.child.kill('SIGTERM');
    await expectGracefulStop(server, inFlight);
  }, 120_000);

  it('finishes the request in flight and exits 0 when npm running `npm run serve` gets the SIGTERM', async () => {
    const server = await startServer('npm', ['run', '--silent', 'serve']);
    const inFlight = await searchInFlight(server);
    server.child.kill('SIGTERM');
    await expectGracefulStop(server, inFlight);
  }, 120_000);

  it('finishes the request in flight and exits 0 when the whole process group of `npm run serve` gets SIGTERM', async () => {
    // The server gets the signal twice: from the kill and relayed by npm.
    const server = await startServer('npm', ['run', '--silent', 'serve']);
    const inFlight = await searchInFlight(server);
    process.kill(-server.child.pid!, 'SIGTERM');
    await expectGracefulStop(server, inFlight);
  }, 120_000);
});
