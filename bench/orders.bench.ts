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
 * The module runs with BENCH_WEBHOOK_ENDPOINTS (2) operator-wide webhook endpoints, every event
 * type, on loopback receivers in this process that answer 204: each order's events are signed and
 * delivered by the server's own worker while the load runs (issue 30: the ratio is to hold with
 * two endpoints configured); and, as a second module server beside it, without endpoints. After
 * each of its loads a module with endpoints is left to deliver its backlog (its CPU measured)
 * before the next server's load, so that no server's round pays for another's deliveries. A third
 * module server, without endpoints, keeps the sandbox's registry in memory (SANDBOX_REGISTRY):
 * what the sandbox's own statements cost beside the module's, on the same database and cores.
 *
 * Environment: BENCH_ENGINES (mariadb; sqlite too if asked), BENCH_SECONDS (10 per round),
 * BENCH_ROUNDS (5), BENCH_RESELLERS (32), BENCH_MARIADB_URL, BENCH_DRAIN_SECONDS (180: the
 * longest wait for a backlog to be delivered). BENCH_MODULE_ENTRY runs another server entry instead of
 * src/main.ts (an older checkout's, for before/after comparisons); BENCH_COMPARE_ENTRY runs one
 * beside it, each module variant twice (this entry's and that one's), in the same alternating
 * rounds; BENCH_NO_WRITE=1 only prints.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import qs from 'qs';
import { computeToken } from '../src/core/auth/api-token';
import { parseDatabaseUrl, connectDatabase } from '../src/infra/db/connect';
import { createResellerModule } from '../src/module';
import { ledgerProblems } from '../test/support/ledger-invariant';
import { databaseCpuSeconds, databaseQuiet, enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { combine, runLoad, type LoadResult } from './support/load';
import { startServer, type ServerProcess } from '../test/support/server-process';
import { writeSection } from './support/results';
import { machine, median, ms, perSecond, positiveInt, ratio, table, verdict } from './support/stats';
import { WHMCS_REGISTRANT as REGISTRANT } from '../test/support/wire';
import { givenGroupSellingCom } from '../test/support/domains';

const SECONDS = positiveInt('BENCH_SECONDS', 10);
const ROUNDS = positiveInt('BENCH_ROUNDS', 5);
const RESELLERS = positiveInt('BENCH_RESELLERS', 32);
const WARMUP_SECONDS = 3;
const MASTER_KEY = Buffer.alloc(32, 11).toString('base64');
const TARGET = 0.64;
const WEBHOOK_ENDPOINTS = Number(process.env.BENCH_WEBHOOK_ENDPOINTS ?? 2);
/** How long a module may take to deliver a round's webhooks before the next server's round. */
const DRAIN_SECONDS = positiveInt('BENCH_DRAIN_SECONDS', 180);

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

/** One module server of the run: the stand-alone server on a database seeded with `endpoints` operator-wide endpoints. */
interface ModuleVariant {
  readonly label: string;
  readonly endpoints: number;
  /** Where the sandbox keeps its registry (SANDBOX_REGISTRY). */
  readonly sandboxRegistry: 'database' | 'memory';
  /** The server's entry (src/main.ts, or another checkout's). */
  readonly entry: string;
}

const MODULE_ENTRY = process.env.BENCH_MODULE_ENTRY ?? 'src/main.ts';
const COMPARE_ENTRY = process.env.BENCH_COMPARE_ENTRY;

interface ModuleResult {
  readonly variant: ModuleVariant;
  readonly load: LoadResult;
  /** Orders/s over the bare server's in the same round, one a round. */
  readonly roundRatios: readonly number[];
  /** Webhook deliveries per order, and per order those made while the rounds ran. */
  readonly deliveriesPerOrder: number;
  readonly deliveredDuringRounds: number;
  /**
   * Server CPU per order from each round's start until every order it took is completed and
   * (with endpoints) every webhook delivered, over the orders completed, µs.
   */
  readonly cpuWithDeliveriesMicros: number;
  /** Deliveries still pending when a drain gave up (0: every drain finished). */
  readonly undrained: number;
}

interface EngineResult {
  engine: Engine;
  modules: ModuleResult[];
  bare: LoadResult;
  orders: number;
  problems: string[];
  /** How long each round waited for a quiet MariaDB, ms (none on SQLite). */
  quietWaits: number[];
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

/**
 * The module servers of a run: with the endpoints asked for and, beside it, without any (what they
 * cost); and without endpoints with the sandbox's registry in memory (what the sandbox's own
 * write per registration costs on the shared database and cores, which a real registrar's work
 * never does).
 */
function moduleVariants(): ModuleVariant[] {
  const withoutEndpoints = {
    label: 'module, no webhook endpoints',
    endpoints: 0,
    sandboxRegistry: 'database',
  } as const;
  const registryInMemory = {
    label: 'module, no webhook endpoints, sandbox registry in memory',
    endpoints: 0,
    sandboxRegistry: 'memory',
  } as const;
  const kinds: Array<Omit<ModuleVariant, 'entry'>> =
    WEBHOOK_ENDPOINTS === 0
      ? [withoutEndpoints, registryInMemory]
      : [
          {
            label: `module, ${WEBHOOK_ENDPOINTS} webhook endpoints`,
            endpoints: WEBHOOK_ENDPOINTS,
            sandboxRegistry: 'database',
          },
          withoutEndpoints,
          registryInMemory,
        ];
  return kinds.flatMap((kind) => [
    { ...kind, entry: MODULE_ENTRY },
    ...(COMPARE_ENTRY ? [{ ...kind, label: `${kind.label}, ${COMPARE_ENTRY}`, entry: COMPARE_ENTRY }] : []),
  ]);
}

async function benchEngine(engine: Engine): Promise<EngineResult> {
  // A database each, seeded alike: the module's background domain sync must not take the bare
  // server's rows (which no registrar holds) for domains of its own.
  const receivers = await webhookReceivers(WEBHOOK_ENDPOINTS);
  const variants = moduleVariants();
  const forModules = await Promise.all(
    variants.map((v, i) => seededDatabase(engine, `orders_${i}`, receivers.urls.slice(0, v.endpoints))),
  );
  const forBare = await seededDatabase(engine, 'orders_bare');
  const moduleServers: ServerProcess[] = [];
  let bareServer: ServerProcess | undefined;
  try {
    const env = (url: string, variant?: ModuleVariant) => ({
      ...(variant && { SANDBOX_REGISTRY: variant.sandboxRegistry }),
      DATABASE_URL: url,
      MASTER_KEY,
      LOG_LEVEL: 'info',
      SEED_DEMO: 'false',
      SANDBOX_LATENCY_MS: '0',
      RECONCILE_INTERVAL_MS: '0',
      WEBHOOK_ALLOW_INSECURE_TARGETS: 'true',
    });
    for (const [m, seeded] of forModules.entries())
      moduleServers.push(await startServer(variants[m]!.entry, env(seeded.db.url, variants[m])));
    bareServer = await startServer('bench/servers/bare-orders-server.ts', env(forBare.db.url));

    // MariaDB's own CPU per order (a local mariadbd): what a server's statements cost the database,
    // taken from the same two cores as everything else.
    const databaseCpu = databaseCpuSeconds(engine);
    let serial = 0;
    let connections = 0;
    const run = (label: string) => `${label}${Date.now().toString(36)}`;
    const moduleLoad = (m: number) => (seconds: number, tag: string) =>
      runLoad({
        url: `${moduleServers[m]!.url}/order/domains/register`,
        connections: RESELLERS,
        seconds,
        serverCpu: moduleServers[m]!.cpuSeconds,
        databaseCpu,
        request: (connection) => {
          // One reseller per connection, for the connection's life.
          connection.reseller ??= forModules[m]!.resellers[connections++ % RESELLERS];
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
              domain: `m${m}${tag}-${serial++}.com`,
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
        databaseCpu,
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

    // A module's round, and then the rest of its orders' work: the orders autocannon stopped
    // waiting for, and the webhook deliveries it has not made yet (the next load, another
    // server's, starts once its worker is idle, so that no server pays for another's deliveries).
    // Its CPU from the round's start to then, over the orders it completed meanwhile.
    const totals = variants.map(() => ({ cpu: 0, orders: 0, deliveries: 0, duringRounds: 0, undrained: 0 }));
    const moduleRound = async (m: number, seconds: number, tag: string): Promise<LoadResult> => {
      const url = forModules[m]!.db.url;
      const server = moduleServers[m]!;
      const ordersBefore = await completedOrders(url);
      const deliveredBefore = (await deliveryCounts(url)).delivered;
      const cpu = server.cpuSeconds();
      const load = await moduleLoad(m)(seconds, tag);
      await settled(url);
      const duringRound = (await deliveryCounts(url)).delivered - deliveredBefore;
      const left = variants[m]!.endpoints > 0 ? await drained(url) : 0;
      const t = totals[m]!;
      t.cpu += server.cpuSeconds() - cpu;
      t.orders += (await completedOrders(url)) - ordersBefore;
      t.deliveries += (await deliveryCounts(url)).delivered - deliveredBefore;
      t.duringRounds += duringRound;
      t.undrained += left;
      return load;
    };

    for (let m = 0; m < variants.length; m++) {
      const warm = await moduleRound(m, WARMUP_SECONDS, run('w'));
      if (warm.failures > 0)
        throw new Error(`${variants[m]!.label} on ${engine}: ${warm.failures} failed requests during warm-up`);
      totals[m] = { cpu: 0, orders: 0, deliveries: 0, duringRounds: 0, undrained: 0 };
    }
    const warm = await bareLoad(WARMUP_SECONDS, run('w'));
    if (warm.failures > 0) throw new Error(`bare orders on ${engine}: ${warm.failures} failed requests during warm-up`);

    const problems: string[] = [];
    const moduleRounds: LoadResult[][] = variants.map(() => []);
    const bareRounds: LoadResult[] = [];
    // Every round starts on a database that has settled from the one before (MariaDB's purge of
    // a round's updated rows, with two endpoints tens of thousands of delivery rows, runs after its
    // last statement): otherwise the server after a module with endpoints pays for its backlog.
    const quietChecks = databaseCpu && connectDatabase(parseDatabaseUrl(forBare.db.url));
    const waits: number[] = [];
    const quiet = async (before: string) => {
      if (!quietChecks || !databaseCpu) return;
      const wait = await databaseQuiet(quietChecks, databaseCpu);
      waits.push(wait.waitedMs);
      process.stderr.write(
        `orders ${engine}: ${wait.waitedMs} ms to a quiet MariaDB before ${before} (${wait.busy})\n`,
      );
      if (!wait.quiet) problems.push(`MariaDB still busy before ${before} after ${wait.waitedMs} ms (${wait.busy})`);
    };
    for (let round = 0; round < ROUNDS; round++) {
      // Alternating order: the bare server first in every other round.
      const servers = [...variants.map((_, m) => m), -1];
      if (round % 2 === 1) servers.reverse();
      for (const which of servers) {
        const label = which === -1 ? 'bare' : variants[which]!.label;
        await quiet(which === -1 ? 'the bare round' : `a round of ${label}`);
        const innodbBefore = quietChecks && (await innodbCounters(quietChecks));
        const load =
          which === -1
            ? await bareLoad(SECONDS, run(`r${round}`))
            : await moduleRound(which, SECONDS, run(`r${round}`));
        if (which === -1) bareRounds.push(load);
        else moduleRounds[which]!.push(load);
        // Each round's own figures, and what InnoDB did meanwhile, for telling a slow round's cause.
        const innodb = innodbBefore && quietChecks ? innodbChange(innodbBefore, await innodbCounters(quietChecks)) : '';
        process.stderr.write(
          `orders ${engine}: round ${round + 1}, ${label}: ${perSecond(load.perSecond)} orders/s, server CPU ${(load.cpuMicros / 1000).toFixed(2)} ms and MariaDB CPU ${(load.databaseCpuMicros / 1000).toFixed(2)} ms an order${innodb && `; InnoDB: ${innodb}`}\n`,
        );
      }
      process.stderr.write(`orders ${engine}: round ${round + 1}/${ROUNDS} done\n`);
    }
    // Requests autocannon stopped waiting for are still being served: let them finish before stopping the servers.
    for (const { db } of forModules) await settled(db.url);
    await settled(forBare.db.url);
    for (const server of moduleServers) await server.stop();
    await bareServer.stop();

    await quietChecks?.destroy();
    if (waits.length > 0)
      process.stderr.write(
        `orders ${engine}: waited ${Math.min(...waits)}–${Math.max(...waits)} ms for a quiet MariaDB before each round\n`,
      );

    // The money, checked in each database after the run: the invariant of every test, and nothing left pending.
    let orders = 0;
    for (const [name, { db }] of [
      ...forModules.map((f, m) => [variants[m]!.label, f] as const),
      ['bare', forBare] as const,
    ]) {
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
    const modules = variants.map((variant, m): ModuleResult => {
      const load = combine(moduleRounds[m]!);
      const t = totals[m]!;
      return {
        variant,
        load,
        roundRatios: moduleRounds[m]!.map((r, i) => r.perSecond / bareRounds[i]!.perSecond),
        deliveriesPerOrder: t.deliveries / t.orders,
        deliveredDuringRounds: t.duringRounds / t.orders,
        cpuWithDeliveriesMicros: (t.cpu * 1e6) / t.orders,
        undrained: t.undrained,
      };
    });
    const bare = combine(bareRounds);
    const failures = modules.reduce((n, m) => n + m.load.failures, 0);
    if (failures + bare.failures > 0) problems.push(`${failures} module and ${bare.failures} bare requests failed`);
    return { engine, modules, bare, orders, problems, quietWaits: waits };
  } finally {
    for (const server of moduleServers) await server.stop();
    await bareServer?.stop();
    process.stderr.write(`orders ${engine}: ${receivers.received()} webhook deliveries received\n`);
    receivers.close();
    for (const { db } of forModules) await db.drop();
    await forBare.db.drop();
  }
}

/** Webhook deliveries delivered, and not (pending or dead), in a module's database. */
/** Orders completed in a database. */
async function completedOrders(url: string): Promise<number> {
  const db = connectDatabase(parseDatabaseUrl(url));
  try {
    const row = await db('orders').where({ status: 'completed' }).count({ n: '*' }).first();
    return Number(row?.n ?? 0);
  } finally {
    await db.destroy();
  }
}

async function deliveryCounts(url: string): Promise<{ delivered: number; undelivered: number }> {
  const db = connectDatabase(parseDatabaseUrl(url));
  try {
    const rows: Array<{ status: string; n: number | string }> = await db('webhook_deliveries')
      .select('status')
      .count({ n: '*' })
      .groupBy('status');
    const count = (pick: (status: string) => boolean) =>
      rows.filter((r) => pick(r.status)).reduce((n, r) => n + Number(r.n), 0);
    return { delivered: count((s) => s === 'delivered'), undelivered: count((s) => s !== 'delivered') };
  } finally {
    await db.destroy();
  }
}

/** Waits (up to DRAIN_SECONDS) until a module has delivered every webhook; answers how many are left. */
async function drained(url: string): Promise<number> {
  const db = connectDatabase(parseDatabaseUrl(url));
  try {
    const until = Date.now() + DRAIN_SECONDS * 1000;
    for (;;) {
      const row = await db('webhook_deliveries').where({ status: 'pending' }).count({ n: '*' }).first();
      const left = Number(row?.n ?? 0);
      if (left === 0 || Date.now() > until) return left;
      await new Promise((r) => setTimeout(r, 200));
    }
  } finally {
    await db.destroy();
  }
}

/** InnoDB's counters a slow round is told by: pages read from disk and flushed, redo waits, checkpoint age. */
const INNODB_COUNTERS = [
  'Innodb_buffer_pool_reads',
  'Innodb_buffer_pool_pages_flushed',
  'Innodb_buffer_pool_wait_free',
  'Innodb_log_waits',
  'Innodb_checkpoint_age',
  'Innodb_buffer_pool_pages_dirty',
] as const;

async function innodbCounters(db: ReturnType<typeof connectDatabase>): Promise<Map<string, number>> {
  const [rows] = (await db.raw(
    `SHOW GLOBAL STATUS WHERE Variable_name IN (${INNODB_COUNTERS.map(() => '?').join(', ')})`,
    [...INNODB_COUNTERS],
  )) as [Array<{ Variable_name: string; Value: string }>];
  return new Map(rows.map((r) => [r.Variable_name, Number(r.Value)]));
}

function innodbChange(before: Map<string, number>, after: Map<string, number>): string {
  const delta = (name: string) => (after.get(name) ?? 0) - (before.get(name) ?? 0);
  return [
    `${delta('Innodb_buffer_pool_reads')} pages read from disk`,
    `${delta('Innodb_buffer_pool_pages_flushed')} flushed`,
    `${delta('Innodb_buffer_pool_wait_free')} waits for a free page`,
    `${delta('Innodb_log_waits')} redo log waits`,
    `checkpoint age ${((before.get('Innodb_checkpoint_age') ?? 0) / 2 ** 20).toFixed(0)} → ${((after.get('Innodb_checkpoint_age') ?? 0) / 2 ** 20).toFixed(0)} MiB`,
    `dirty pages ${before.get('Innodb_buffer_pool_pages_dirty')} → ${after.get('Innodb_buffer_pool_pages_dirty')}`,
  ].join(', ');
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
  const cpu = (micros: number) => `${(micros / 1000).toFixed(2)} ms`;
  /** MariaDB's CPU per order, or nothing where there is no local mariadbd to read. */
  const databaseCpuCell = (micros: number) => (Number.isNaN(micros) ? '' : cpu(micros));
  const perRound = (ratios: readonly number[]) => {
    const sorted = [...ratios].sort((a, b) => a - b);
    return `${ratio(median(sorted))} (${ratio(sorted[0]!)}–${ratio(sorted[sorted.length - 1]!)})`;
  };
  const rows = results.flatMap(({ engine, modules, bare }) => [
    ...modules.map((m) => [
      engine,
      `${m.variant.label} (stand-alone server, sandbox at 0 ms)`,
      perSecond(m.load.perSecond),
      ms(m.load.p50),
      ms(m.load.p99),
      cpu(m.load.cpuMicros),
      databaseCpuCell(m.load.databaseCpuMicros),
      cpu(m.cpuWithDeliveriesMicros),
      m.variant.endpoints === 0
        ? ''
        : `${m.deliveriesPerOrder.toFixed(1)} (${m.deliveredDuringRounds.toFixed(1)} during the rounds)${m.undrained > 0 ? `; ${m.undrained} left undelivered` : ''}`,
      m.variant.endpoints === WEBHOOK_ENDPOINTS && m.variant.entry === MODULE_ENTRY
        ? verdict(m.load.perSecond / bare.perSecond, TARGET)
        : ratio(m.load.perSecond / bare.perSecond),
      perRound(m.roundRatios),
      ratio(bare.cpuMicros / m.cpuWithDeliveriesMicros),
    ]),
    [
      engine,
      'bare transactions (reserve, insert order and domain; complete)',
      perSecond(bare.perSecond),
      ms(bare.p50),
      ms(bare.p99),
      cpu(bare.cpuMicros),
      databaseCpuCell(bare.databaseCpuMicros),
      '',
      '',
      '1.00',
      '',
      '1.00',
    ],
  ]);
  const invariant = results.map(
    (r) =>
      `${r.engine}: ${r.orders.toLocaleString('en')} orders, ${r.problems.length === 0 ? 'ledger invariant holds, every order completed' : `PROBLEMS: ${r.problems.join('; ')}`}`,
  );
  writeSection(
    'orders',
    [
      '## 2. Orders: `POST /order/domains/register`',
      '',
      `${RESELLERS} resellers, one per connection, ${ROUNDS} alternating rounds of ${SECONDS} s per server after a ${WARMUP_SECONDS} s warm-up, every request a new name; each server in its own process with a database of its own, seeded alike. The module is the stand-alone server (authentication, PHP-form parsing and validation, catalogue price, the premium question asked of the registrar (the sandbox reads its registry: one statement), phase 1 transaction, the sandbox registrar storing the name, the settlement transaction, each transaction with its one outbox INSERT, request log; 11 round trips an order, its transactions begun by their first statement on manual-commit connections (ADR 14), and the outbox's dispatch transactions, several commits' events in each). "Sandbox registry in memory": the same server with SANDBOX_REGISTRY=memory, so the sandbox neither reads nor writes its registry on the database (a registration is otherwise an autocommitted INSERT of its own, a third durable commit an order): the registrar's work off the platform's database and cores, where a real registrar's is. The baseline is bare Koa doing the same two transactions on tables of the same schema with knex.transaction and nothing else (10 round trips; ids made as the module makes them). ${machine()}.`,
      '',
      WEBHOOK_ENDPOINTS === 0
        ? 'No webhook endpoints (`BENCH_WEBHOOK_ENDPOINTS=0`).'
        : `The module runs twice: with ${WEBHOOK_ENDPOINTS} operator-wide webhook endpoints on loopback receivers (every event type, about 6 events an order: each order's events signed and POSTed by the server's own delivery worker while the load runs, as in production), and beside it without endpoints. Delivery costs more CPU than it can get while the orders take all they can, so a backlog builds during a round; after each of its rounds the server is left to deliver it (and is measured doing so) before the next server's round, so that no server pays for another's deliveries. "Server CPU per order, its webhooks delivered" is the server's CPU from each round's start until every order it took is completed and every webhook of them delivered, over those orders (for the module without endpoints, until its orders are completed): what an order costs when its webhooks keep up, whatever the machine's load. The ratio on orders/s is the one the target is set on: orders served while the server also delivers what it can. "MariaDB CPU per order" is the local mariadbd's CPU over each round, per order served: what the server's statements cost the database, on the same two cores.`,
      '',
      table(
        [
          'database',
          'server',
          'orders/s',
          'p50',
          'p99',
          'server CPU per order (rounds)',
          'MariaDB CPU per order (rounds)',
          'server CPU per order, its webhooks delivered',
          'webhook deliveries per order',
          'ratio to bare (orders/s)',
          'ratio per round: median (lowest–highest)',
          'ratio to bare (CPU per order, webhooks delivered)',
        ],
        rows,
      ),
      '',
      `After the run: ${invariant.join('; ')}.`,
      ...results
        .filter((r) => r.quietWaits.length > 0)
        .flatMap((r) => [
          '',
          `Each round started once MariaDB was quiet (its CPU under a tenth of a core over half a second and InnoDB's purge caught up), so that no round pays for the database work another left behind: ${r.engine} waited ${(Math.min(...r.quietWaits) / 1000).toFixed(1)}–${(Math.max(...r.quietWaits) / 1000).toFixed(1)} s.`,
        ]),
    ].join('\n'),
  );
  if (results.some((r) => r.problems.length > 0)) process.exitCode = 1;
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
