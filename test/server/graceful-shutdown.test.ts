import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { computeToken } from '../../src/core/auth/api-token';
import { canConnect, freePort, ROOT, send, waitFor } from '../support/server-process';
import { TEST_MASTER_KEY } from '../support/harness';
import { createTestDatabase, type TestDatabase } from '../support/test-database';

/** The stand-alone server in a process of its own, its output and what happened when, for the failure message. */
interface Server {
  readonly child: ChildProcess;
  readonly port: number;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  logLines(): Array<Record<string, unknown>>;
  stderr(): string;
  /** Notes a step of the test on the timeline, in ms since the spawn. */
  mark(step: string): void;
  /** The timeline, the exit and the server's output: tells a slow machine from a bug. */
  report(): string;
}

const servers: Server[] = [];
const databases: TestDatabase[] = [];

/**
 * The server is the process the test signals, as under `npm run serve` or a process manager: no tsx CLI in
 * between. That wrapper relays a signal to its child and kills the child (SIGKILL) when the child has not
 * told it within 30 ms that the signal arrived, which a server starved of CPU on a loaded machine fails to do.
 */
async function startServerProcess(db: TestDatabase, env: Record<string, string> = {}): Promise<Server> {
  const port = await freePort();
  const spawnedAt = Date.now();
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: ROOT,
    env: {
      ...process.env,
      DATABASE_URL: db.url,
      MASTER_KEY: TEST_MASTER_KEY,
      PORT: String(port),
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'info',
      SEED_DEMO: 'true',
      CONFIG_FILE: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => {
    stdout += String(chunk);
  });
  child.stderr!.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const timeline: string[] = [];
  const mark = (step: string) => timeline.push(`${String(Date.now() - spawnedAt).padStart(6)} ms  ${step}`);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      mark(`the server exited (code ${code}, signal ${signal})`);
      resolve({ code, signal });
    }),
  );
  const server: Server = {
    child,
    port,
    exited,
    logLines: () =>
      stdout
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Record<string, unknown>),
    stderr: () => stderr,
    mark,
    report: () =>
      `--- timeline:\n${timeline.join('\n')}\n--- server stdout:\n${stdout.slice(-4000)}\n--- server stderr:\n${stderr.slice(-2000)}`,
  };
  servers.push(server);
  return server;
}

/** Runs the scenario; a failure carries the server's timeline and output. */
async function reporting(server: Server, scenario: () => Promise<void>): Promise<void> {
  try {
    await scenario();
  } catch (error) {
    throw new Error(`${(error as Error).message}\n${server.report()}`);
  }
}

async function freshDatabase(): Promise<TestDatabase> {
  const db = await createTestDatabase();
  databases.push(db);
  return db;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** SIGCONT, to a process that may have been killed while it was stopped. */
function resume(pid: number): void {
  try {
    process.kill(pid, 'SIGCONT');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
  }
}

/** The processes started by `pid`, and theirs, from /proc (none where there is no /proc). */
function descendantsOf(pid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  const parentOf = new Map<number, number>();
  for (const name of entries) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parentOf.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch {
      // gone since the listing
    }
  }
  const found: number[] = [];
  for (let frontier = [pid]; frontier.length > 0; ) {
    frontier = [...parentOf].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...frontier);
  }
  return found;
}

describe('the stand-alone server on SIGTERM', () => {
  afterAll(async () => {
    for (const { child } of servers) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const db of databases) await db.drop();
  });

  it('stops accepting connections, finishes the request in flight, then exits 0, even when it is starved of CPU as the signal comes', async () => {
    const server = await startServerProcess(await freshDatabase(), { SANDBOX_LATENCY_MS: '5000' });
    const { port, logLines } = server;
    await reporting(server, async () => {
      await waitFor('the listening line', async () =>
        logLines().some((l) => l.msg === 'domain reseller API listening') ? true : undefined,
      );
      server.mark('listening');
      const apiKey = await waitFor('the demo key', async () => /API key:\s+(\S+)/.exec(server.stderr())?.[1]);
      const email = 'demo@reseller.test';
      const headers = {
        username: email,
        token: computeToken(email, apiKey, new Date()),
        'content-type': 'application/x-www-form-urlencoded',
      };

      // A search whose registrar call takes a while (SANDBOX_LATENCY_MS) is in flight when the signal comes.
      server.mark('search sent');
      const inFlight = send(port, 'POST', '/domains/lookup', headers, 'searchTerm=shutdown-test&tldsToInclude=.com');
      inFlight.then(
        (reply) => server.mark(`search answered ${reply.status}`),
        (error: Error) => server.mark(`search failed: ${error.message}`),
      );
      await waitFor('the search to be in flight', async () => {
        // Metrics are on a listener of their own (METRICS_PORT), whose scrapes are not API requests.
        const metricsPort = logLines().find((l) => l.msg === 'metrics listening')?.port as number;
        const metrics = await send(metricsPort, 'GET', '/metrics');
        const gauge = Number(/^reseller_http_requests_in_flight (\d+)/m.exec(metrics.body)?.[1] ?? 0);
        return gauge >= 1 ? true : undefined; // the search
      });
      server.mark('search in flight');
      // A loaded machine, here for certain: the server gets no CPU for a while as the signal arrives, and
      // whatever stands between the test and the server (a wrapper relaying the signal) runs first.
      const signalled = server.child.pid!;
      const behind = descendantsOf(signalled);
      for (const pid of [signalled, ...behind]) process.kill(pid, 'SIGSTOP');
      server.child.kill('SIGTERM');
      server.mark(`SIGTERM sent to the stopped server (${behind.length} process(es) behind it)`);
      await sleep(100);
      resume(signalled);
      await sleep(200);
      for (const pid of behind) resume(pid);
      server.mark('SIGCONT');

      // New connections are refused while the search is still being answered.
      // A connection that reached the backlog just as the listener closed is reset rather than refused: try again.
      const refused = await waitFor('a refused connection', () =>
        send(port, 'GET', '/healthz').then(
          () => undefined,
          (error: NodeJS.ErrnoException) => (error.code === 'ECONNRESET' ? undefined : error.code),
        ),
      );
      server.mark(`new connection: ${refused}`);
      expect(refused).toBe('ECONNREFUSED');
      const reply = await inFlight;
      expect(reply.status).toBe(200);
      expect(JSON.parse(reply.body)).toEqual([expect.objectContaining({ domainName: 'shutdown-test.com' })]);

      expect(await server.exited).toEqual({ code: 0, signal: null });
      const messages = logLines().map((l) => l.msg);
      expect(messages).toEqual(expect.arrayContaining(['shutting down: /readyz now answers 503', 'stopped']));
      expect(logLines().find((l) => l.msg === 'request' && l.route === '/domains/lookup')).toMatchObject({
        status: 200,
      });
    });
  }, 120_000);

  it('shuts down gracefully on a signal that comes as soon as the port accepts connections, before the start-up is over', async () => {
    const server = await startServerProcess(await freshDatabase());
    await reporting(server, async () => {
      // The port listens before the demo reseller is seeded and the addresses are printed: once the
      // migrations are over, the test tries it back to back so as to signal at the first moment.
      await waitFor('the migrations', async () =>
        server.logLines().some((l) => l.msg === 'database migrated') ? true : undefined,
      );
      for (let i = 0; !(await canConnect(server.port)); i++) {
        if (server.child.exitCode !== null) throw new Error('the server exited before listening');
        if (i > 60_000) throw new Error('gave up waiting for the port');
      }
      server.child.kill('SIGTERM');
      server.mark('the port accepts: SIGTERM sent');

      expect(await server.exited).toEqual({ code: 0, signal: null });
      const messages = server.logLines().map((l) => l.msg);
      expect(messages).toEqual(expect.arrayContaining(['shutting down: /readyz now answers 503', 'stopped']));
    });
  }, 120_000);
});
