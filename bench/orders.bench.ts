/**
 * Orders: `npm run bench:orders`.
 *
 * POST /order/domains/register on MariaDB from 32 concurrent resellers (one per connection,
 * autocannon), the sandbox registrar at zero latency: the stand-alone server (src/main.ts:
 * authentication, form parsing and validation, catalogue prices, phase 1, the registrar call,
 * phase 3, the request log) against a bare Koa server doing the equivalent bare transactions on
 * the same tables (bench/servers/bare-orders-server.ts: reserve with the debit entry, insert the
 * order and the domain; then complete). Both in processes of their own, measured in alternating
 * rounds in one run, each on a database of its own seeded alike (the module's background domain sync
 * would otherwise take the bare server's rows for its own). The ledger invariant is checked after the run and every
 * order must be completed. Target: the module at 0.64 of the bare server's orders/s or better (the
 * ratio before the registrar boundary and settlement were redesigned, which was to cost nothing).
 *
 * The module has BENCH_WEBHOOK_ENDPOINTS (2) operator-wide webhook endpoints, every event type,
 * on loopback receivers in this process that answer 204: each order's events are signed and
 * delivered while the load runs (issue 30: the ratio is to hold with two endpoints configured).
 *
 * Environment: BENCH_ENGINES (mariadb; sqlite too if asked), BENCH_SECONDS (10 per round),
 * BENCH_ROUNDS (3), BENCH_RESELLERS (32), BENCH_MARIADB_URL. BENCH_MODULE_ENTRY runs another server entry instead of
 * src/main.ts (an older checkout's, for before/after comparisons); BENCH_NO_WRITE=1 only prints.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import { computeToken } from '../src/core/auth/api-token';
import { parseDatabaseUrl, connectDatabase } from '../src/infra/db/connect';
import { createResellerModule } from '../src/module';
import { ledgerProblems } from '../test/support/ledger-invariant';
import { enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { combine, runLoad, type LoadResult } from './support/load';
import { startServer, type ServerProcess } from '../test/support/server-process';
import { writeSection } from './support/results';
import { machine, ms, perSecond, positiveInt, table, verdict } from './support/stats';
import { WHMCS_REGISTRANT as REGISTRANT } from '../test/support/wire';
import { givenGroupSellingCom } from '../test/support/domains';

const SECONDS = positiveInt('BENCH_SECONDS', 10);
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const RESELLERS = positiveInt('BENCH_RESELLERS', 32);
const WARMUP_SECONDS = 3;
const MASTER_KEY = Buffer.alloc(32, 11).toString('base64');
const TARGET = 0.64;
const WEBHOOK_ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 2);

/** Loopback receivers answering 204, counting what they were sent. */
async function webhookReceivers(count: number): Promise<{ urls: string[]; received: () => number; close(): void }> {
  let received = 0;
  const servers = await Promise.all(
    Array.from({ length: count }, async () => {
      const server = http.createServer((req, res) => {
        req.resume();
        req.on('end', () => {
          received++;
          res.writeHead(204).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      return server;
    }),
  );
  return {
    urls: servers.map((s) => `http://127.0.0.1:${(s.address() as AddressInfo).port}/hook`),
    received: () => received,
    close: () => {
      for (const s of servers) {
        s.closeAllConnections();
        s.close();
      }
    },
  };
}

interface EngineResult {
  engine: Engine;
  module: LoadResult;
  bare: LoadResult;
  orders: number;
  problems: string[];
}

interface SeededDatabase {
  readonly db: Awaited<ReturnType<typeof freshDatabase>>;
  readonly resellers: ReadonlyArray<{ id: string; email: string; apiKey: string }>;
}

/** A fresh database with the bench group, .com on the sandbox and RESELLERS funded resellers. */
async function seededDatabase(
  engine: Engine,
  label: string,
  webhookUrls: readonly string[] = [],
): Promise<SeededDatabase> {
  const db = await freshDatabase(engine, label);
  const seed = await createResellerModule({
    database: db.url,
    settings: { masterKey: MASTER_KEY, logLevel: 'silent', webhookAllowInsecureTargets: true },
  });
  await seed.migrate();
  await givenGroupSellingCom(seed, 'bench');
  for (const url of webhookUrls) await seed.services.webhooks.add('operator', url);
  const resellers: Array<{ id: string; email: string; apiKey: string }> = [];
  for (let i = 0; i < RESELLERS; i++) {
    const email = `orders-${i}@example.com`;
    const { reseller, apiKey } = await seed.services.resellers.create(email, 'bench', 10_000_000_00);
    resellers.push({ id: reseller.id, email, apiKey });
  }
  await seed.close();
  return { db, resellers };
}

async function benchEngine(engine: Engine): Promise<EngineResult> {
  // A database each, seeded alike: the module's background domain sync must not take the bare
  // server's rows (which no registrar holds) for domains of its own.
  const receivers = await webhookReceivers(WEBHOOK_ENDPOINTS);
  const forModule = await seededDatabase(engine, 'orders', receivers.urls);
  const forBare = await seededDatabase(engine, 'orders_bare');
  let moduleServer: ServerProcess | undefined;
  let bareServer: ServerProcess | undefined;
  try {
    const env = (url: string) => ({
      DATABASE_URL: url,
      MASTER_KEY,
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      SANDBOX_LATENCY_MS: '0',
      RECONCILE_INTERVAL_MS: '0',
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
    });
    moduleServer = await startServer(process.env.BENCH_MODULE_ENTRY ?? 'src/main.ts', env(forModule.db.url));
    bareServer = await startServer('bench/servers/bare-orders-server.ts', env(forBare.db.url));

    let serial = 0;
    let connections = 0;
    const run = (label: string) => `${label}${Date.now().toString(36)}`;
    const moduleLoad = (seconds: number, tag: string) =>
      runLoad({
        url: `${moduleServer!.url}/order/domains/register`,
        connections: RESELLERS,
        seconds,
        serverCpu: moduleServer!.cpuSeconds,
        request: (connection) => {
          // One reseller per connection, for the connection's life.
          connection.reseller ??= forModule.resellers[connections++ % RESELLERS];
          const r = connection.reseller as SeededDatabase['resellers'][number];
          connection.token ??= computeToken(r.email, r.apiKey, new Date());
          return {
            method: 'POST',
            headers: {
              username: r.email,
              token: connection.token as string,
              'content-type': 'application/x-www-form-urlencoded',
            },
            body: qs.stringify({
              domain: `m${tag}-${serial++}.com`,
              regperiod: '1',
              nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
              contacts: { Registrant: REGISTRANT },
            }),
          };
        },
      });
    const bareLoad = (seconds: number, tag: string) =>
      runLoad({
        url: `${bareServer!.url}/order`,
        connections: RESELLERS,
        seconds,
        serverCpu: bareServer!.cpuSeconds,
        request: (connection) => {
          connection.reseller ??= forBare.resellers[connections++ % RESELLERS];
          const r = connection.reseller as SeededDatabase['resellers'][number];
          return {
            method: 'POST',
            headers: { 'x-reseller': r.id, 'content-type': 'application/x-www-form-urlencoded' },
            body: qs.stringify({
              domain: `b${tag}-${serial++}.com`,
              regperiod: '1',
              nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
              contacts: { Registrant: REGISTRANT },
            }),
          };
        },
      });

    for (const [name, load] of [
      ['module', moduleLoad],
      ['bare', bareLoad],
    ] as const) {
      const warm = await load(WARMUP_SECONDS, run('w'));
      if (warm.failures > 0)
        throw new Error(`${name} orders on ${engine}: ${warm.failures} failed requests during warm-up`);
    }
    const moduleRounds: LoadResult[] = [];
    const bareRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['module', 'bare'] as const) : (['bare', 'module'] as const);
      for (const which of order) {
        if (which === 'module') moduleRounds.push(await moduleLoad(SECONDS, run(`r${round}`)));
        else bareRounds.push(await bareLoad(SECONDS, run(`r${round}`)));
      }
      process.stderr.write(`orders ${engine}: round ${round + 1}/${ROUNDS} done\n`);
    }
    // Requests autocannon stopped waiting for are still being served: let them finish before stopping the servers.
    await settled(forModule.db.url);
    await settled(forBare.db.url);
    await moduleServer.stop();
    await bareServer.stop();

    // The money, checked in each database after the run: the invariant of every test, and nothing left pending.
    const problems: string[] = [];
    let orders = 0;
    for (const [name, { db }] of [
      ['module', forModule],
      ['bare', forBare],
    ] as const) {
      const check = connectDatabase(parseDatabaseUrl(db.url));
      try {
        problems.push(...(await ledgerProblems(check)).slice(0, 5).map((p) => `${name}: ${p}`));
        const byStatus: Array<{ status: string; n: number | string }> = await check('orders')
          .select('status')
          .count({ n: '*' })
          .groupBy('status');
        for (const r of byStatus) if (r.status !== 'completed') problems.push(`${name}: ${r.n} orders ${r.status}`);
        orders += byStatus.reduce((n, r) => n + Number(r.n), 0);
      } finally {
        await check.destroy();
      }
    }
    const pendingDeliveries = await (async () => {
      const check = connectDatabase(parseDatabaseUrl(forModule.db.url));
      try {
        const row = await check('webhook_deliveries').whereNot({ status: 'delivered' }).count({ n: '*' }).first();
        return Number(row?.n ?? 0);
      } finally {
        await check.destroy();
      }
    })();
    if (WEBHOOK_ENDPOINTS > 0)
      process.stderr.write(`orders ${engine}: ${pendingDeliveries} deliveries not yet delivered at stop\n`);
    const module = combine(moduleRounds);
    const bare = combine(bareRounds);
    if (module.failures + bare.failures > 0)
      problems.push(`${module.failures} module and ${bare.failures} bare requests failed`);
    return { engine, module, bare, orders, problems };
  } finally {
    await moduleServer?.stop();
    await bareServer?.stop();
    process.stderr.write(`orders ${engine}: ${receivers.received()} webhook deliveries received\n`);
    receivers.close();
    await forModule.db.drop();
    await forBare.db.drop();
  }
}

/** Waits (up to 30 s) until no order is pending: the last requests of a round have been served. */
async function settled(url: string): Promise<void> {
  const db = connectDatabase(parseDatabaseUrl(url));
  try {
    for (let i = 0; i < 300; i++) {
      const row = await db('orders').where({ status: 'pending' }).count({ n: '*' }).first();
      if (Number(row?.n ?? 0) === 0) return;
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    await db.destroy();
  }
}

async function main(): Promise<void> {
  const results: EngineResult[] = [];
  for (const engine of enginesFromEnv(['mariadb'])) results.push(await benchEngine(engine));
  const rows = results.flatMap(({ engine, module, bare }) => {
    const r = module.perSecond / bare.perSecond;
    return [
      [
        engine,
        'module (stand-alone server, sandbox at 0 ms)',
        perSecond(module.perSecond),
        ms(module.p50),
        ms(module.p99),
        `${(module.cpuMicros / 1000).toFixed(2)} ms`,
        verdict(r, TARGET),
      ],
      [
        engine,
        'bare transactions (reserve, insert order and domain; complete)',
        perSecond(bare.perSecond),
        ms(bare.p50),
        ms(bare.p99),
        `${(bare.cpuMicros / 1000).toFixed(2)} ms`,
        '1.00',
      ],
    ];
  });
  const invariant = results.map(
    (r) =>
      `${r.engine}: ${r.orders.toLocaleString('en')} orders, ${r.problems.length === 0 ? 'ledger invariant holds, every order completed' : `PROBLEMS: ${r.problems.join('; ')}`}`,
  );
  writeSection(
    'orders',
    [
      '## 2. Orders: `POST /order/domains/register`',
      '',
      `${RESELLERS} resellers, one per connection, ${ROUNDS} alternating rounds of ${SECONDS} s per server after a ${WARMUP_SECONDS} s warm-up, every request a new name; each server in its own process with a database of its own, seeded alike. The module is the stand-alone server with ${WEBHOOK_ENDPOINTS} operator-wide webhook endpoints (every event signed and POSTed to a loopback receiver as the load runs; the outbox INSERT in each transaction) (authentication, PHP-form parsing and validation, catalogue price, the premium question asked of the registrar (the sandbox reads its registry: one statement), phase 1 transaction, the sandbox registrar storing the name, the settlement transaction, request log; 11 round trips an order, its transactions begun by their first statement on manual-commit connections (ADR 14)); the baseline is bare Koa doing the same two transactions on tables of the same schema with knex.transaction and nothing else (10 round trips; ids made as the module makes them). ${machine()}.`,
      '',
      table(['database', 'server', 'orders/s', 'p50', 'p99', 'server CPU per order', 'ratio to bare (orders/s)'], rows),
      '',
      `After the run: ${invariant.join('; ')}.`,
    ].join('\n'),
  );
  if (results.some((r) => r.problems.length > 0)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
