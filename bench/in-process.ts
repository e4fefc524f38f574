/**
 * Server CPU per authenticated read without sockets: `npm run bench:in-process` (part of `npm run bench`).
 *
 * Drives `GET /billing/credits` through Koa's request handler with in-memory requests (no HTTP
 * parsing, no socket writes: those cost both servers the same), 64 in flight, and measures this
 * process's CPU per request: the module's middleware (its defaults, and with the API log and
 * metrics off; request log at info to /dev/null, written asynchronously as the stand-alone
 * server writes stdout) against a bare Koa handler making the same single-row balance query
 * through knex. The servers take turns in short slices, so that drift on a shared machine hits
 * all alike; each server's figure is its total CPU over its total requests, and the ratio is
 * also given per turn (the median of the turns' ratios). Steadier than the HTTP benchmark on a
 * noisy machine, and the place to take a profile: `node --cpu-prof --import tsx bench/in-process.ts`.
 *
 * Environment: BENCH_ENGINES (sqlite,mariadb: a fresh database each), BENCH_REQUESTS (2000 per
 * slice), BENCH_TURNS (15), BENCH_NO_WRITE=1 only prints.
 */
import http from 'node:http';
import net from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { computeToken } from '../src/core/auth/api-token';
import { formatAmount } from '../src/core/shared/money';
import { createLogger } from '../src/infra/logging';
import { createResellerModule, type ResellerModule } from '../src/module';
import { enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { writeSection } from './support/results';
import { machine, median, positiveInt, ratio, table } from './support/stats';

const REQUESTS = positiveInt('BENCH_REQUESTS', 2000);
const TURNS = positiveInt('BENCH_TURNS', 15);
const IN_FLIGHT = 64;
const TARGET = 0.8;
const MASTER_KEY = Buffer.alloc(32, 9).toString('base64');
const EMAIL = 'bench@example.com';
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

/** This process's CPU (user + system, µs) for `requests` requests, `IN_FLIGHT` at a time. */
async function cpuOf(handler: Handler, headers: Record<string, string>, requests: number): Promise<number> {
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
  return used.user + used.system;
}

interface Measured {
  readonly label: string;
  /** µs of CPU per request over every turn. */
  readonly perRequest: number;
  /** bare / this, per turn. */
  readonly turnRatios: number[];
}

async function benchEngine(engine: Engine): Promise<Measured[]> {
  const db = await freshDatabase(engine, 'in_process');
  const modules: ResellerModule[] = [];
  const open = async (settings: Record<string, unknown>) => {
    const module = await createResellerModule({
      database: db.url,
      settings: { masterKey: MASTER_KEY, backgroundJobs: false, ...settings },
      logger: createLogger('info', pino.destination({ dest: '/dev/null', sync: false })),
    });
    modules.push(module);
    return module;
  };
  try {
    const defaults = await open({});
    await defaults.migrate();
    await defaults.services.resellers.createGroup('bench');
    const { reseller, apiKey } = await defaults.services.resellers.create(EMAIL, 'bench', 123_45);
    const quieter = await open({ apiLog: false, metrics: false });

    const bareApp = new Koa();
    bareApp.use(async (ctx) => {
      const row = await defaults
        .knex('credit_accounts')
        .select('balance_minor')
        .where({ reseller_id: reseller.id })
        .first();
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(formatAmount(Number(row?.balance_minor ?? 0)));
    });
    const handler = (module: ResellerModule) => {
      const app = new Koa();
      app.use(module.middleware());
      return app.callback();
    };
    const servers: Array<readonly [string, Handler]> = [
      ['module, defaults (API log and metrics on)', handler(defaults)],
      ['module, API_LOG=false METRICS=false', handler(quieter)],
      ['bare Koa + the same query', bareApp.callback()],
    ];
    const bare = servers.length - 1;
    // A token is good for its UTC hour and 60 s past it: made afresh for every turn.
    const headers = () => ({ username: EMAIL, token: computeToken(EMAIL, apiKey, new Date()) });
    for (const [, h] of servers) await cpuOf(h, headers(), 3000);

    const cpu = servers.map(() => [] as number[]);
    for (let turn = 0; turn < TURNS; turn++) {
      // Rotate which goes first, so none always runs right after the collector's work of another.
      for (let k = 0; k < servers.length; k++) {
        const i = (turn + k) % servers.length;
        cpu[i]!.push(await cpuOf(servers[i]![1], headers(), REQUESTS));
      }
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return servers.map(([label], i) => ({
      label,
      perRequest: sum(cpu[i]!) / (TURNS * REQUESTS),
      turnRatios: cpu[i]!.map((c, t) => cpu[bare]![t]! / c),
    }));
  } finally {
    for (const module of modules) await module.close();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const rows: string[][] = [];
  for (const engine of enginesFromEnv()) {
    const measured = await benchEngine(engine);
    const bare = measured[measured.length - 1]!;
    for (const m of measured) {
      const r = bare.perRequest / m.perRequest;
      const sorted = [...m.turnRatios].sort((a, b) => a - b);
      rows.push([
        engine,
        m.label,
        `${m.perRequest.toFixed(1)} µs`,
        m === bare ? '1.00' : `**${ratio(r)}** ${r >= TARGET ? '(target ≥ 0.8 met)' : '(below the 0.8 target)'}`,
        m === bare ? '' : `${ratio(median(m.turnRatios))} (${ratio(sorted[0]!)}–${ratio(sorted[sorted.length - 1]!)})`,
      ]);
    }
    process.stderr.write(`in-process ${engine}: done\n`);
  }
  writeSection(
    'auth-reads-cpu',
    [
      '## 1b. Authenticated reads, server CPU in one process: `GET /billing/credits`',
      '',
      `\`bench/in-process.ts\`: the Koa handlers driven without sockets, ${IN_FLIGHT} requests in flight, ${TURNS} turns of ${REQUESTS} requests per server taking turns, CPU of the process per request (user + system). The module as in section 1 (request log at info, asynchronous, to /dev/null); the bare handler makes the same single-row balance query through knex. ${machine()}.`,
      '',
      table(
        [
          'database',
          'server',
          'CPU per request',
          'ratio to bare (CPU per request, all turns)',
          'ratio per turn: median (lowest–highest)',
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
