/**
 * Authenticated reads: `npm run bench:auth-reads`.
 *
 * GET /billing/credits at 64 concurrent connections (autocannon), on SQLite and on MariaDB:
 * the stand-alone server with its defaults (src/main.ts: route table, HMAC authentication with
 * a reseller lookup per request, container, JSON request log at info level) against a
 * bare Koa server answering
 * the same route with the same single-row balance query and nothing else
 * (bench/servers/bare-server.ts). Each server runs in its own process; the two are measured in
 * alternating rounds in one run, so that drift on a shared machine hits both alike. Target: the
 * module at 0.8 of the bare server's requests/s or better.
 *
 * Environment: BENCH_ENGINES (sqlite,mariadb), BENCH_SECONDS (10 per round), BENCH_ROUNDS (3),
 * BENCH_CONNECTIONS (64), BENCH_MARIADB_URL. BENCH_MODULE_ENTRY runs another server entry instead of
 * src/main.ts (an older checkout's, for before/after comparisons); BENCH_NO_WRITE=1 only prints.
 */
import { computeToken } from '../src/core/auth/api-token';
import { createResellerModule } from '../src/module';
import { enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { combine, runLoad, type LoadResult } from './support/load';
import { startServer, type ServerProcess } from '../test/support/server-process';
import { writeSection } from './support/results';
import { machine, ms, perSecond, positiveInt, ratio, table } from './support/stats';

const SECONDS = positiveInt('BENCH_SECONDS', 10);
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const CONNECTIONS = positiveInt('BENCH_CONNECTIONS', 64);
const WARMUP_SECONDS = 3;
const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
const EMAIL = 'bench@example.com';
const TARGET = 0.8;

interface EngineResult { engine: Engine; module: LoadResult; bare: LoadResult }

async function benchEngine(engine: Engine): Promise<EngineResult> {
  const db = await freshDatabase(engine, 'auth_reads');
  let moduleServer: ServerProcess | undefined;
  let bareServer: ServerProcess | undefined;
  try {
    const seed = await createResellerModule({ database: db.url, settings: { masterKey: MASTER_KEY, logLevel: 'silent' } });
    await seed.migrate();
    await seed.services.resellers.createGroup('bench');
    const { reseller, apiKey } = await seed.services.resellers.create(EMAIL, 'bench', 123_45);
    await seed.close();

    const env = { DATABASE_URL: db.url, MASTER_KEY, LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info', SEED_DEMO: 'false', BENCH_RESELLER_ID: reseller.id };
    moduleServer = await startServer(process.env.BENCH_MODULE_ENTRY ?? 'src/main.ts', env);
    bareServer = await startServer('bench/servers/bare-server.ts', env);
    // A token is good for its UTC hour and 60 s past it: made afresh for every round.
    const headers = () => ({ username: EMAIL, token: computeToken(EMAIL, apiKey, new Date()) });
    const load = (server: ServerProcess, seconds: number) => runLoad({ url: `${server.url}/billing/credits`, connections: CONNECTIONS, seconds, headers, serverCpu: server.cpuSeconds });

    for (const server of [moduleServer, bareServer]) {
      const warm = await load(server, WARMUP_SECONDS);
      if (warm.failures > 0) throw new Error(`${server === moduleServer ? 'module' : 'bare'} server on ${engine}: ${warm.failures} failed requests during warm-up`);
    }
    const moduleRounds: LoadResult[] = [];
    const bareRounds: LoadResult[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // Alternate which goes first, so neither always gets the machine right after a pause.
      const order = round % 2 === 0 ? [moduleServer, bareServer] : [bareServer, moduleServer];
      for (const server of order) (server === moduleServer ? moduleRounds : bareRounds).push(await load(server, SECONDS));
      process.stderr.write(`auth-reads ${engine}: round ${round + 1}/${ROUNDS} done\n`);
    }
    const result = { engine, module: combine(moduleRounds), bare: combine(bareRounds) };
    if (result.module.failures + result.bare.failures > 0) throw new Error(`auth-reads on ${engine}: ${result.module.failures} module and ${result.bare.failures} bare requests failed`);
    return result;
  } finally {
    await moduleServer?.stop();
    await bareServer?.stop();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const results: EngineResult[] = [];
  for (const engine of enginesFromEnv()) results.push(await benchEngine(engine));
  const rows = results.flatMap(({ engine, module, bare }) => {
    const r = module.perSecond / bare.perSecond;
    return [
      [engine, 'module (stand-alone server)', perSecond(module.perSecond), ms(module.p50), ms(module.p99), `${module.cpuMicros.toFixed(0)} µs`, `**${ratio(r)}** ${r >= TARGET ? '(target ≥ 0.8 met)' : '(below the 0.8 target)'}`, ratio(bare.cpuMicros / module.cpuMicros)],
      [engine, 'bare Koa + the same query', perSecond(bare.perSecond), ms(bare.p50), ms(bare.p99), `${bare.cpuMicros.toFixed(0)} µs`, '1.00', '1.00'],
    ];
  });
  writeSection('auth-reads', [
    '## 1. Authenticated reads: `GET /billing/credits`',
    '',
    `${CONNECTIONS} connections, ${ROUNDS} alternating rounds of ${SECONDS} s per server after a ${WARMUP_SECONDS} s warm-up; each server in its own process, autocannon in a third. The module is the stand-alone server with its defaults (HMAC authentication with a reseller lookup per request, route table, container, JSON request log at info); the baseline is bare Koa with the same single-row balance query. ${machine()}.`,
    '',
    table(['database', 'server', 'requests/s', 'p50', 'p99', 'server CPU per request', 'ratio to bare (requests/s)', 'ratio to bare (CPU per request)'], rows),
  ].join('\n'));
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
