import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { computeToken } from '../../src/core/auth/api-token';
import { ROOT, send, waitFor } from '../support/server-process';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

describe('the stand-alone server on SIGTERM', () => {
  let db: TestDatabase;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    db = await createTestDatabase();
  });
  afterAll(async () => {
    if (child && child.exitCode === null) child.kill('SIGKILL');
    await db.drop();
  });

  it('stops accepting connections, finishes the request in flight, then exits 0', async () => {
    const server = spawn(path.join(ROOT, 'node_modules/.bin/tsx'), ['src/main.ts'], {
      cwd: ROOT,
      env: {
        ...process.env,
        DATABASE_URL: db.url,
        MASTER_KEY: TEST_MASTER_KEY,
        PORT: '0',
        METRICS_PORT: '0',
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
        SEED_DEMO: 'true',
        SANDBOX_LATENCY_MS: '5000',
        CONFIG_FILE: '',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child = server;
    let stdout = '';
    let stderr = '';
    server.stdout!.on('data', (chunk) => {
      stdout += String(chunk);
    });
    server.stderr!.on('data', (chunk) => {
      stderr += String(chunk);
    });
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)));
    const logLines = () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>);
    try {
      await scenario();
    } catch (error) {
      // What the server said, to tell a slow machine from a bug.
      throw new Error(
        `${(error as Error).message}\n--- server stdout:\n${stdout.slice(-4000)}\n--- server stderr:\n${stderr.slice(-2000)}`,
      );
    }

    async function scenario(): Promise<void> {
      const port = await waitFor(
        'the listening line',
        async () => logLines().find((l) => l.msg === 'domain reseller API listening')?.port as number | undefined,
      );
      const apiKey = await waitFor('the demo key', async () => /API key:\s+(\S+)/.exec(stderr)?.[1]);
      const email = 'demo@reseller.test';
      const headers = {
        username: email,
        token: computeToken(email, apiKey, new Date()),
        'content-type': 'application/x-www-form-urlencoded',
      };

      // A search whose registrar call takes a while (SANDBOX_LATENCY_MS) is in flight when the signal comes.
      const inFlight = send(port, 'POST', '/domains/lookup', headers, 'searchTerm=shutdown-test&tldsToInclude=.com');
      await waitFor('the search to be in flight', async () => {
        // Metrics are on a listener of their own (METRICS_PORT), whose scrapes are not API requests.
        const metricsPort = logLines().find((l) => l.msg === 'metrics listening')?.port as number;
        const metrics = await send(metricsPort, 'GET', '/metrics');
        const gauge = Number(/^reseller_http_requests_in_flight (\d+)/m.exec(metrics.body)?.[1] ?? 0);
        return gauge >= 1 ? true : undefined; // the search
      });
      server.kill('SIGTERM');

      // New connections are refused while the search is still being answered.
      // A connection that reached the backlog just as the listener closed is reset rather than refused: try again.
      const refused = await waitFor('a refused connection', () =>
        send(port, 'GET', '/healthz').then(
          () => undefined,
          (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : error.code),
        ),
      );
      expect(refused).toBe('ECONNREFUSED');
      const reply = await inFlight;
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toEqual([expect.objectContaining({ domainName: 'shutdown-test.com' })]);

      expect(await exited).toBe(0);
      const messages = logLines().map((l) => l.msg);
      expect(messages).toEqual(expect.arrayContaining(['shutting down: /readyz now answers 503', 'stopped']));
      expect(logLines().find((l) => l.msg === 'request' && l.route === '/domains/lookup')).toMatchObject({
        status: 200,
      });
    }
  }, 120_000);
});
