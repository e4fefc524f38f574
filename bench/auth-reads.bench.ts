/**
 * Authenticated reads: `npm run bench:auth-reads`.
 *
 * GET /billing/credits at 64 concurrent connections (autocannon), on SQLite and on MariaDB:
 * the stand-alone server with its defaults (src/main.ts: route table, HMAC authentication with
 * a reseller lookup per request, container, JSON request log at info level; one statement per
 * request that reads the reseller with its balance, on the driver's own connection:
 * docs/adr/0011) against a bare Koa server answering
 * the same route with the same single-row balance query and nothing else
 * (bench/servers/bare-server.ts). Each server runs in its own process; the two are measured in
 * alternating rounds in one run, so that drift on a shared machine hits both alike. Target: the
 * module at 0.8 of the bare server's requests/s or better.
 *
 * Environment: BENCH_ENGINES (sqlite,mariadb), BENCH_SECONDS (10 per round), BENCH_ROUNDS (5),
 * BENCH_CONNECTIONS (64), BENCH_MARIADB_URL. BENCH_MODULE_ENTRY runs another server entry instead of
 * src/main.ts; BENCH_BEFORE_ENTRY adds a fourth server, another checkout's entry with its defaults
 * (`/work/base/src/main.ts`), for a before/after comparison side by side in one run;
 * BENCH_NO_WRITE=1 only prints. With a local MariaDB server, its CPU per request is measured from
 * /proc alongside the server's: on a shared machine, what MariaDB spends is taken from the others.
 */
import { computeToken } from '../src/core/auth/api-token';
import { databaseCpuSeconds, enginesFromEnv, freshDatabase, seedReadsReseller, type Engine } from './support/databases';
import { combine, runLoad, type LoadResult } from './support/load';
import { startServer, type ServerProcess } from '../test/support/server-process';
import { writeSection } from './support/results';
import { machine, median, ms, perSecond, positiveInt, ratio, table, verdict } from './support/stats';

const SECONDS = positiveInt('BENCH_SECONDS', 10);
const ROUNDS = positiveInt('BENCH_ROUNDS', 5);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 64);
const WARMUP_SECONDS = 3;
const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
const EMAIL = 'bench@example.com';
const TARGET = 0.8;

interface Variant {
  readonly label: string;
  readonly entry: string;
  readonly env: Record<string, string>;
}
interface EngineResult {
  engine: Engine;
  /** Each server's rounds combined, and its requests/s over bare's in each round (bare ran beside it). */
  results: Array<{ label: string; load: LoadResult; roundRatios: number[] }>;
}

/**
 * The servers compared, each in its own process: the stand-alone server with its defaults, the
 * same with its per-request observability that can be switched off (API log, metrics), and the bare baseline.
 */
const BEFORE_ENTRY = process.env.BENCH_BEFORE_ENTRY;
const VARIANTS: Variant[] = [
  ...(BEFORE_ENTRY ? [{ label: `before (${BEFORE_ENTRY}), defaults`, entry: BEFORE_ENTRY, env: {} }] : []),
  {
    label: 'module, defaults (API log and metrics on)',
    entry: process.env.BENCH_MODULE_ENTRY ?? 'src/main.ts',
    env: {},
  },
  {
    label: 'module, API_LOG=false METRICS=false',
    entry: process.env.BENCH_MODULE_ENTRY ?? 'src/main.ts',
    env: { API_LOG: 'false', METRICS: 'false' },
  },
  { label: 'bare Koa + the same query', entry: 'bench/servers/bare-server.ts', env: {} },
];
const BARE = VARIANTS.length - 1;

async function benchEngine(engine: Engine): Promise<EngineResult> {
  const db = await freshDatabase(engine, 'auth_reads');
  const servers: ServerProcess[] = [];
  try {
    const { resellerId, apiKey } = await seedReadsReseller(db.url, MASTER_KEY, EMAIL);

    const env = {
      DATABASE_URL: db.url,
      MASTER_KEY,
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      SEED_DEMO: 'false',
      BACKGROUND_JOBS: 'false',
      BENCH_RESELLER_ID: resellerId,
    };
    for (const variant of VARIANTS) servers.push(await startServer(variant.entry, { ...env, ...variant.env }));
    // A token is good for its UTC hour and 60 s past it: made afresh for every round.
    const headers = () => ({ username: EMAIL, token: computeToken(EMAIL, apiKey, new Date()) });
    const databaseCpu = databaseCpuSeconds(engine);
    const load = (server: ServerProcess, seconds: number) =>
      runLoad({
        url: `${server.url}/billing/credits`,
        connections: CONNECTIONS,
        seconds,
        headers,
        serverCpu: server.cpuSeconds,
        databaseCpu,
      });

    for (const [i, server] of servers.entries()) {
      const warm = await load(server, WARMUP_SECONDS);
      if (warm.failures > 0)
        throw new Error(`${VARIANTS[i]!.label} on ${engine}: ${warm.failures} failed requests during warm-up`);
    }
    const rounds: LoadResult[][] = VARIANTS.map(() => []);
    for (let round = 0; round < ROUNDS; round++) {
      // Rotate which goes first, so none always gets the machine right after a pause.
      for (let k = 0; k < servers.length; k++) {
        const i = (round + k) % servers.length;
        rounds[i]!.push(await load(servers[i]!, SECONDS));
      }
      process.stderr.write(`auth-reads ${engine}: round ${round + 1}/${ROUNDS} done\n`);
    }
    const results = VARIANTS.map((v, i) => ({
      label: v.label,
      load: combine(rounds[i]!),
      roundRatios: rounds[i]!.map((r, k) => r.perSecond / rounds[BARE]![k]!.perSecond),
    }));
    const failed = results.filter((r) => r.load.failures > 0);
    if (failed.length > 0)
      throw new Error(
        `auth-reads on ${engine}: failed requests: ${failed.map((r) => `${r.label} ${r.load.failures}`).join(', ')}`,
      );
    return { engine, results };
  } finally {
    for (const server of servers) await server.stop();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const results: EngineResult[] = [];
  for (const engine of enginesFromEnv()) results.push(await benchEngine(engine));
  const rows = results.flatMap(({ engine, results: byVariant }) => {
    const bare = byVariant[BARE]!.load;
    return byVariant.map(({ label, load, roundRatios }, i) => {
      const r = load.perSecond / bare.perSecond;
      const judged = i === BARE ? '1.00' : verdict(r, TARGET);
      const sorted = [...roundRatios].sort((a, b) => a - b);
      const spread =
        i === BARE ? '' : `${ratio(median(roundRatios))} (${ratio(sorted[0]!)}–${ratio(sorted[sorted.length - 1]!)})`;
      return [
        engine,
        label,
        perSecond(load.perSecond),
        ms(load.p50),
        ms(load.p99),
        `${load.cpuMicros.toFixed(0)} µs`,
        Number.isNaN(load.databaseCpuMicros) ? '' : `${load.databaseCpuMicros.toFixed(0)} µs`,
        judged,
        spread,
        ratio(bare.cpuMicros / load.cpuMicros),
      ];
    });
  });
  writeSection(
    'auth-reads',
    [
      '## 1. Authenticated reads: `GET /billing/credits`',
      '',
      `${CONNECTIONS} connections, ${ROUNDS} rotating rounds of ${SECONDS} s per server after a ${WARMUP_SECONDS} s warm-up; each server in its own process, autocannon in another. The module is the stand-alone server (HMAC authentication with a reseller lookup per request, IP allow-list, route table, container, request log at info, and by default the API log and Prometheus metrics; background jobs off), once with its defaults and once with the API log and metrics off; it makes one statement per request, which reads the reseller with its balance on a connection of its own through the driver's public API (ADR 12). The baseline is bare Koa with the same single-row balance query, one read through knex. MariaDB CPU per request: the local mariadbd's CPU (from /proc) during each server's rounds, which on a shared machine is taken from the others (the module's includes writing its API log). ${machine()}.`,
      '',
      table(
        [
          'database',
          'server',
          'requests/s',
          'p50',
          'p99',
          'server CPU per request',
          'MariaDB CPU per request',
          'ratio to bare (requests/s)',
          'ratio per round: median (lowest–highest)',
          'ratio to bare (CPU per request)',
        ],
        rows,
      ),
    ].join('\n'),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
