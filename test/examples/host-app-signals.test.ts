import { type ChildProcess, spawn } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import knex from 'knex';
import qs from 'qs';
import { computeToken } from '../../src/core/auth/api-token';
import { TEST_ENGINE } from '../support/test-database';
import { REGISTRANT } from '../support/wire';

const ROOT = path.resolve(__dirname, '../..');

interface Reply {
  readonly status: number;
  readonly body: string;
}

function send(
  port: number,
  method: string,
  url: string,
  headers: Record<string, string> = {},
  body = '',
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: url, headers }, (res) => {
      let text = '';
      res.on('data', (chunk) => {
        text += String(chunk);
      });
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

async function waitFor<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 40_000): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/**
 * Issue 31, item 13: the embedding example started as its README says (`node --import tsx
 * examples/host-app/main.ts`, one process), stopped by SIGTERM or Ctrl-C while an order is at the
 * registrar: the order finishes and is answered, the host's feed and balance have every step, and
 * the process exits 0 on its own (nothing left running, nothing lost). The example runs on SQLite
 * whatever the test engine, so it runs once.
 */
(TEST_ENGINE === 'sqlite' ? describe : describe.skip)('examples/host-app/main.ts stopped by a signal', () => {
  let dir: string;
  let child: ChildProcess | undefined;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'host-app-signals-'));
    // The example's ./data lives in the working folder; `--import tsx` is resolved from there too.
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
  });
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  it.each(['SIGTERM', 'SIGINT'] as const)(
    'finishes the order in flight, keeps every step of it, and exits 0 on %s',
    async (signal) => {
      const env: NodeJS.ProcessEnv = { ...process.env, PORT: '0', LOG_LEVEL: 'warn', SANDBOX_LATENCY_MS: '1500' };
      for (const name of ['DATABASE_URL', 'CONFIG_FILE', 'MASTER_KEY', 'MASTER_KEY_FILE', 'PLUGINS_DIR'])
        delete env[name];
      const started = spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'examples/host-app/main.ts')], {
        cwd: dir,
        env,
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      child = started;
      let output = '';
      started.stdout!.on('data', (chunk) => {
        output += String(chunk);
      });
      started.stderr!.on('data', (chunk) => {
        output += String(chunk);
      });
      const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
        started.once('exit', (code, exitSignal) => resolve({ code, signal: exitSignal })),
      );
      try {
        const [, port, email, apiKey] = await waitFor('the listening line', async () => {
          if (started.exitCode !== null) throw new Error('exited');
          return (
            /host listening on http:\/\/127\.0\.0\.1:(\d+); reseller (\S+), API key (\S+)/.exec(output) ?? undefined
          );
        });
        const headers = {
          username: email!,
          token: computeToken(email!, apiKey!, new Date()),
          'content-type': 'application/x-www-form-urlencoded',
        };
        const order = send(
          Number(port),
          'POST',
          '/reseller-api/order/domains/register',
          headers,
          qs.stringify({
            domain: 'signalled.com',
            regperiod: '1',
            nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
            contacts: { registrant: REGISTRANT },
          }),
        );
        // The order has reserved its price and waits for the registrar (SANDBOX_LATENCY_MS).
        await waitFor('the order to be at the registrar', async () => {
          const feed = JSON.parse((await send(Number(port), 'GET', '/activity')).body) as Array<{ event: string }>;
          return feed.some((a) => a.event === 'order.placed') ? true : undefined;
        });
        started.kill(signal);

        const reply = await order;
        expect(reply).toEqual({ status: 200, body: '"success"' });
        expect(await exited).toEqual({ code: 0, signal: null });
        expect(output).toContain('host stopped');

        const db = knex({
          client: 'better-sqlite3',
          connection: { filename: path.join(dir, 'data/host-app.sqlite') },
          useNullAsDefault: true,
        });
        try {
          expect(await db('domains').where({ name: 'signalled.com' }).first('status')).toEqual({ status: 'Active' });
          expect(await db('host_customers').where({ email }).first('balance_cents')).toEqual({ balance_cents: 88_00 });
          const feed = (await db('host_activity').orderBy('id')).map((a: { event: string }) => a.event);
          expect(feed).toEqual(
            expect.arrayContaining(['order.placed', 'domain.status_changed', 'order.completed', 'credit.changed']),
          );
          expect(feed.filter((e) => e === 'order.completed')).toHaveLength(1);
        } finally {
          await db.destroy();
        }
      } catch (error) {
        throw new Error(`${(error as Error).message}\n--- output:\n${output.slice(-4000)}`);
      }
    },
    90_000,
  );
});
