/**
 * Server CPU per authenticated read without sockets: `npm run bench:in-process`.
 *
 * Drives `GET /billing/credits` through Koa's request handler with in-memory requests (no HTTP
 * parsing, no socket writes: those cost both servers the same), 64 in flight, and measures this
 * process's CPU per request: the module's middleware (its defaults, request log to /dev/null)
 * against a bare Koa handler making the same single-row query through knex, in alternating
 * rounds. Steadier than the HTTP benchmarks on a noisy machine, and the place to take a profile:
 * `node --cpu-prof --import tsx bench/in-process.ts`. Not part of `npm run bench` (it writes
 * nothing to RESULTS.md); bench/RESULTS.md ("Hot paths") quotes it.
 *
 * Environment: BENCH_DATABASE_URL (default: a fresh SQLite file), BENCH_REQUESTS (20000 per
 * round), BENCH_ROUNDS (3).
 */
import http from 'node:http';
import net from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { computeToken } from '../src/core/auth/api-token';
import { formatAmount } from '../src/core/shared/money';
import { createLogger } from '../src/infra/logging';
import { createResellerModule } from '../src/module';
import { freshDatabase } from './support/databases';
import { positiveInt } from './support/stats';

const REQUESTS = positiveInt('BENCH_REQUESTS', 20_000);
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const IN_FLIGHT = 64;
type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

/** One request through the handler; resolves with the status once the reply is ended. */
function inject(handler: Handler, headers: Record<string, string>): Promise<number> {
  const req = new http.IncomingMessage(new net.Socket());
  req.method = 'GET';
  req.url = '/billing/credits';
  req.headers = { host: 'bench', ...headers };
  req.push(null);
  const res = new http.ServerResponse(req);
  return new Promise((resolve) => {
    res.end = (() => {
      resolve(res.statusCode);
      return res;
    }) as typeof res.end;
    handler(req, res);
  });
}

async function cpuPerRequest(handler: Handler, headers: Record<string, string>, requests: number): Promise<number> {
  let sent = 0;
  const started = process.cpuUsage();
  await Promise.all(
    Array.from({ length: IN_FLIGHT }, async () => {
      while (sent++ < requests) {
        const status = await inject(handler, headers);
        if (status !== 200) throw new Error(`answered ${status}`);
      }
    }),
  );
  const used = process.cpuUsage(started);
  return (used.user + used.system) / requests;
}

async function main(): Promise<void> {
  const db = process.env.BENCH_DATABASE_URL ? undefined : await freshDatabase('sqlite', 'in_process');
  const url = process.env.BENCH_DATABASE_URL ?? db!.url;
  const module = await createResellerModule({
    database: url,
    settings: { masterKey: Buffer.alloc(32, 9).toString('base64'), backgroundJobs: false },
    logger: createLogger('info', pino.destination({ dest: '/dev/null', sync: true })),
  });
  try {
    await module.migrate();
    await module.services.resellers.createGroup('bench');
    const { reseller, apiKey } = await module.services.resellers.create('bench@example.com', 'bench', 123_45);
    const headers = { username: 'bench@example.com', token: computeToken('bench@example.com', apiKey, new Date()) };

    const moduleApp = new Koa();
    moduleApp.use(module.middleware());
    const bareApp = new Koa();
    bareApp.use(async (ctx) => {
      const row = await module
        .knex('credit_accounts')
        .select('balance_minor')
        .where({ reseller_id: reseller.id })
        .first();
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(formatAmount(Number(row?.balance_minor ?? 0)));
    });
    const servers = [
      ['module', moduleApp.callback()],
      ['bare Koa + the same query', bareApp.callback()],
    ] as const;
    for (const [, handler] of servers) await cpuPerRequest(handler, headers, 3000);
    const results = servers.map(() => [] as number[]);
    for (let round = 0; round < ROUNDS; round++) {
      for (const [i, [, handler]] of servers.entries())
        results[i]!.push(await cpuPerRequest(handler, headers, REQUESTS));
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const bare = median(results[1]!);
    for (const [i, [label]] of servers.entries()) {
      const m = median(results[i]!);
      console.log(
        `${label.padEnd(28)} ${m.toFixed(1).padStart(7)} µs CPU per request (rounds: ${results[i]!.map((x) => x.toFixed(1)).join(', ')}); bare / this: ${(bare / m).toFixed(2)}`,
      );
    }
  } finally {
    await module.close();
    await db?.drop();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
