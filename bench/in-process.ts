/**
 * Server CPU per authenticated read without sockets: `npm run bench:in-process` (part of `npm run bench`).
 *
 * Drives `GET /billing/credits` through Koa's request handler with in-memory requests (no HTTP
 * parsing, no socket writes: those cost both servers the same), 64 in flight, and measures the
 * CPU per request (user + system) of the process serving them: the module's middleware (its
 * defaults, and with the API log and metrics off; request log at info to /dev/null, written
 * asynchronously as the stand-alone server writes stdout) against a bare Koa handler making the
 * same single-row balance query through knex. Each server runs in a process of its own (no
 * shared heap, timers or async hooks); the parent has them take turns, so that drift on a shared
 * machine hits all alike. A module's turn ends with its API log written, so the writes it caused
 * are counted in it. Each server's figure is its total CPU over its total requests; the ratio is
 * also given per turn (the median of the turns' ratios). Steadier than the HTTP benchmark on a
 * noisy machine, and the place to take a profile: BENCH_PROFILE_DIR=… (every child writes one).
 *
 * Environment: BENCH_ENGINES (sqlite,mariadb: a fresh database each), BENCH_REQUESTS (2000 per
 * turn), BENCH_TURNS (15), BENCH_NO_WRITE=1 only prints.
 */
import { type ChildProcess, fork } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import Koa from 'koa';
import pino from 'pino';
import { computeToken } from '../src/core/auth/api-token';
import { formatAmount } from '../src/core/common/money';
import { createLogger } from '../src/infra/logging';
import { createResellerModule } from '../src/module';
import { ROOT } from '../test/support/server-process';
import { enginesFromEnv, freshDatabase, seedReadsReseller, type Engine } from './support/databases';
import { writeSection } from './support/results';
import { machine, median, positiveInt, ratio, table, verdict } from './support/stats';

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

type ServerKind = 'module' | 'module-quiet' | 'bare';
const SERVERS: ReadonlyArray<readonly [ServerKind, string]> = [
  ['module', 'module, defaults (API log and metrics on)'],
  ['module-quiet', 'module, API_LOG=false METRICS=false'],
  ['bare', 'bare Koa + the same query'],
];

/** One server in this (child) process: answers `{ run: requests, headers }` with the CPU they took. */
async function serveTurns(kind: ServerKind, url: string, resellerId: string): Promise<void> {
  const module = await createResellerModule({
    database: url,
    settings: {
      masterKey: MASTER_KEY,
      backgroundJobs: false,
      ...(kind === 'module-quiet' ? { apiLog: false, metrics: false } : {}),
    },
    logger: createLogger('info', pino.destination({ dest: '/dev/null', sync: false })),
  });
  const app = new Koa();
  if (kind === 'bare') {
    app.use(async (ctx) => {
      const row = await module
        .knex('credit_accounts')
        .select('balance_minor')
        .where({ reseller_id: resellerId })
        .first();
      ctx.type = 'application/json';
      ctx.body = JSON.stringify(formatAmount(Number(row?.balance_minor ?? 0)));
    });
  } else {
    app.use(module.middleware());
  }
  const handler = app.callback();
  process.on('message', (message: { run?: number; headers?: Record<string, string>; stop?: true }) => {
    if (message.stop) {
      void module.close().then(() => process.exit(0));
      return;
    }
    const turn = async () => {
      const started = process.cpuUsage();
      await cpuOf(handler, message.headers!, message.run!);
      // The API log entries of this turn are written in it: their cost is the module's.
      await module.flushApiLog();
      const used = process.cpuUsage(started);
      return used.user + used.system;
    };
    turn().then(
      (cpu) => process.send!({ cpu }),
      (error: Error) => process.send!({ error: error.message }),
    );
  });
  process.send!({ ready: true });
}

/** Starts a server process and returns a function that runs one turn in it. */
async function startChild(kind: ServerKind, url: string, resellerId: string) {
  const child: ChildProcess = fork(__filename, ['--serve', kind, url, resellerId], {
    cwd: ROOT,
    execArgv: [
      ...(process.env.BENCH_PROFILE_DIR ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_PROFILE_DIR}`] : []),
      '--import',
      'tsx',
    ],
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  // One answer per turn; the exit listener of a turn is removed once its answer came.
  const next = () =>
    new Promise<{ cpu?: number; error?: string; ready?: true }>((resolve, reject) => {
      const exited = (code: number | null) => reject(new Error(`${kind} exited (${code})`));
      child.once('exit', exited);
      child.once('message', (message) => {
        child.off('exit', exited);
        resolve(message as { cpu?: number; error?: string; ready?: true });
      });
    });
  await next();
  return {
    async turn(requests: number, headers: Record<string, string>): Promise<number> {
      const answer = next();
      child.send({ run: requests, headers });
      const { cpu, error } = await answer;
      if (error !== undefined) throw new Error(`${kind}: ${error}`);
      return cpu!;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.send({ stop: true });
      }),
  };
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
  const children: Array<Awaited<ReturnType<typeof startChild>>> = [];
  try {
    const { resellerId, apiKey } = await seedReadsReseller(db.url, MASTER_KEY, EMAIL);
    for (const [kind] of SERVERS) children.push(await startChild(kind, db.url, resellerId));
    const bare = SERVERS.length - 1;
    // A token is good for its UTC hour and 60 s past it: made afresh for every turn.
    const headers = () => ({ username: EMAIL, token: computeToken(EMAIL, apiKey, new Date()) });
    for (const child of children) await child.turn(3000, headers());

    const cpu = SERVERS.map(() => [] as number[]);
    for (let turn = 0; turn < TURNS; turn++) {
      // Rotate which goes first, so none always runs right after another's.
      for (let k = 0; k < SERVERS.length; k++) {
        const i = (turn + k) % SERVERS.length;
        cpu[i]!.push(await children[i]!.turn(REQUESTS, headers()));
      }
    }
    const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
    return SERVERS.map(([, label], i) => ({
      label,
      perRequest: sum(cpu[i]!) / (TURNS * REQUESTS),
      turnRatios: cpu[i]!.map((c, t) => cpu[bare]![t]! / c),
    }));
  } finally {
    for (const child of children) await child.stop();
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
        m === bare ? '1.00' : verdict(r, TARGET),
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
      `\`bench/in-process.ts\`: the Koa handlers driven without sockets, ${IN_FLIGHT} requests in flight, each server in a process of its own, ${TURNS} turns of ${REQUESTS} requests per server taking turns, CPU of the serving process per request (user + system; a module's turn includes writing its API log). The module as in section 1 (request log at info, asynchronous, to /dev/null); the bare handler makes the same single-row balance query through knex. ${machine()}.`,
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

const [flag, kind, url, resellerId] = process.argv.slice(2);
(flag === '--serve' ? serveTurns(kind as ServerKind, url!, resellerId!) : main()).catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
