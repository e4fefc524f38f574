/**
 * Console benchmark: `npm run bench:console` (or `npx tsx bench/console.bench.ts`).
 *
 * The operator console's domain list over BENCH_DOMAINS (100,000) domains held by 50 resellers,
 * with three filters (status, registrar, TLD) and one page of 50, served over HTTP by the real
 * console (session cookie, page table, Eta, layout). Side by side in one run, alternating: the
 * page, and its keyset query alone (the same read the page makes, through the console's read
 * model, in-process; the run checks that the page sends exactly this statement). Target: the page
 * in at most 2x the query's time. Also the server's own time per page (from the request reaching
 * Koa to the response handed to the socket: the page without the client's work and the
 * loopback's), the CPU time per page and per query, the SQL statements of one page and of one
 * dashboard (a bounded number, whatever the size of the business), and the query for a TLD with
 * no domains (an index seek, not a walk).
 *
 * The page is timed from its request sent to its whole body read, over one kept-alive connection.
 * The server runs in this process, so whatever the client spends is counted as the page's time, a
 * cost of the measuring side that no browser puts on the server. The page's own row uses a bare
 * socket client (the request's bytes made once: a browser's navigation, its usual headers and the
 * session cookie; the answer read as bytes up to its Content-Length and searched for the table,
 * never decoded). Beside it, alternating in the same rounds, the same page through node:http's
 * client, which earlier runs used: its request and response objects, header parsing and UTF-8
 * decoding in this process cost about as much as a quarter of the page. (fetch, before that, cost
 * more still: WHATWG streams, headers and abort signals per request.)
 *
 * The session is one this process has served before (as every page after a sign-in is), so the
 * list's read starts beside the session read (Page.early, web-app.ts).
 *
 * BENCH_ENGINES=sqlite,mariadb (default both); BENCH_ROUNDS (200). BENCH_PROFILE_DIR: after the timed
 * rounds, a CPU profile (Chrome's .cpuprofile) of BENCH_PROFILE_ROUNDS (500) more rounds of page and
 * query per engine, with `<engine>.spans.json` giving each one's span on the profile's clock, so
 * that a sample can be assigned to the page or the query it fell in. BENCH_BASE_MODULE: another
 * checkout's src/module.ts (for before/after comparisons): its console is served too, on the same
 * database and session, and its page joins the alternation as a row of its own.
 */
import { writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import path from 'node:path';
import net, { type AddressInfo } from 'node:net';
import Koa from 'koa';
import { ulid } from '../src/core/common/ids';
import { KnexConsoleViews } from '../src/infra/repositories/knex-console-views';
import { createResellerModule } from '../src/module';
import { baseModule, type ModuleFactory } from './support/base-module';
import { type Engine, enginesFromEnv, freshDatabase } from './support/databases';
import { writeSection } from './support/results';
import { machine, median, ms, positiveInt, ratio, table } from './support/stats';

const DOMAINS = positiveInt('BENCH_DOMAINS', 100_000);
const ROUNDS = positiveInt('BENCH_ROUNDS', 200);
const RESELLERS = 50;
const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const TLDS = ['.com', '.net', '.org', '.io'];
const STATUSES = ['Active', 'Active', 'Active', 'Expired', 'Cancelled'];
const FILTER = { status: 'Active', registrar: 'sandbox', tld: '.com' };
const PAGE_PATH = '/admin/domains?status=Active&registrar=sandbox&tld=.com';

/** A console mounted on a server of its own, and its domain-list page fetched with the session's cookie. */
async function serveConsole(module: Awaited<ReturnType<ModuleFactory>>, cookie: string) {
  const app = new Koa();
  // The server's own time for a request: from Koa's first middleware to the response handed to the socket.
  let served = Number.NaN;
  app.use(async (ctx, next) => {
    const started = performance.now();
    ctx.res.once('finish', () => {
      served = performance.now() - started;
    });
    await next();
  });
  app.use(module.console({ mountPath: '/admin' }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  const { port } = server.address() as AddressInfo;
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const get = (path: string) =>
    new Promise<{ status: number; body: string }>((resolve, reject) => {
      http
        .get({ host: '127.0.0.1', port, path, agent, headers: { cookie } }, (response) => {
          let body = '';
          response.setEncoding('utf8');
          response.on('data', (chunk: string) => {
            body += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
          response.on('error', reject);
        })
        .on('error', reject);
    });
  const raw = await rawClient(port, cookie);
  return {
    get,
    /** One page through node:http's client; returns the server's own time for it. */
    async page(): Promise<number> {
      const { status, body } = await get(PAGE_PATH);
      if (status !== 200 || !body.includes('id="domains"')) throw new Error(`the page answered ${status}`);
      return served;
    },
    /** One page through the bare socket client; returns the server's own time for it. */
    async pageRaw(): Promise<number> {
      const { status, body } = await raw();
      if (status !== 200 || !body.includes(DOMAINS_TABLE)) throw new Error(`the page answered ${status}`);
      return served;
    },
    async close() {
      agent.destroy();
      raw.close();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const DOMAINS_TABLE = Buffer.from('id="domains"');

/**
 * The lightest client of the page: one kept-alive socket, the request's bytes made once (a
 * browser's navigation: its usual headers and the session cookie), the answer read as bytes up
 * to its Content-Length, never decoded. It runs in the server's process, so whatever it spends
 * counts as the page's time.
 */
async function rawClient(port: number, cookie: string) {
  const socket = net.connect(port, '127.0.0.1');
  socket.setNoDelay(true);
  await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
  const request = Buffer.from(
    [
      `GET ${PAGE_PATH} HTTP/1.1`,
      `Host: 127.0.0.1:${port}`,
      'Connection: keep-alive',
      'Upgrade-Insecure-Requests: 1',
      'User-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36',
      'Accept: text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8',
      'Sec-Fetch-Site: same-origin',
      'Sec-Fetch-Mode: navigate',
      'Sec-Fetch-User: ?1',
      'Sec-Fetch-Dest: document',
      `Referer: http://127.0.0.1:${port}/admin/domains`,
      'Accept-Encoding: gzip, deflate, br',
      'Accept-Language: en-GB,en;q=0.9',
      `Cookie: ${cookie}`,
      '',
      '',
    ].join('\r\n'),
  );
  let waiting: { resolve: (r: { status: number; body: Buffer }) => void; reject: (e: Error) => void } | undefined;
  let received: Buffer = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => {
    received = received.length === 0 ? chunk : Buffer.concat([received, chunk]);
    const headEnd = received.indexOf('\r\n\r\n');
    if (headEnd < 0 || !waiting) return;
    const head = received.subarray(0, headEnd).toString('latin1');
    const length = /\r\ncontent-length: *(\d+)/i.exec(head);
    if (!length) return waiting.reject(new Error(`an answer without Content-Length:\n${head}`));
    const end = headEnd + 4 + Number(length[1]);
    if (received.length < end) return;
    const done = waiting;
    waiting = undefined;
    done.resolve({ status: Number(head.slice(9, 12)), body: received.subarray(headEnd + 4, end) });
    received = received.subarray(end);
  });
  socket.on('error', (error) => waiting?.reject(error));
  const get = () =>
    new Promise<{ status: number; body: Buffer }>((resolve, reject) => {
      waiting = { resolve, reject };
      socket.write(request);
    });
  return Object.assign(get, { close: () => socket.destroy() });
}

async function run(engine: Engine, base: ModuleFactory | undefined): Promise<string[][]> {
  const db = await freshDatabase(engine, 'console');
  const open = (factory: ModuleFactory) =>
    factory({
      database: db.url,
      settings: { masterKey: MASTER_KEY, logLevel: 'warn', apiLog: false, backgroundJobs: false },
    });
  const module = await open(createResellerModule);
  let baseModule: Awaited<ReturnType<ModuleFactory>> | undefined;
  try {
    await module.migrate();
    await module.services.resellers.createGroup('default');
    for (const tld of TLDS)
      await module.services.catalogue.setTld({
        tld,
        group: 'default',
        registrar: 'sandbox',
        prices: { register: { 1: 1000 } },
      });
    const resellerIds: string[] = [];
    for (let i = 0; i < RESELLERS; i++)
      resellerIds.push((await module.services.resellers.create(`r${i}@bench.example`, 'default', 0)).reseller.id);
    process.stderr.write(`[${engine}] inserting ${DOMAINS} domains\n`);
    const now = Date.now();
    for (let start = 0; start < DOMAINS; start += 1000) {
      const rows = [];
      for (let i = start; i < Math.min(start + 1000, DOMAINS); i++) {
        const tld = TLDS[i % TLDS.length]!;
        const name = `name-${i.toString().padStart(7, '0')}${tld}`;
        rows.push({
          id: ulid(),
          name,
          unicode_name: name,
          tld,
          reseller_id: resellerIds[i % RESELLERS]!,
          registrar: 'sandbox',
          status: STATUSES[i % STATUSES.length]!,
          expiry_date: `2027-${String((i % 12) + 1).padStart(2, '0')}-15`,
          created_at: now,
          updated_at: now,
        });
      }
      await module.knex.batchInsert('domains', rows, 500);
    }

    // A signed-in admin: the operator made through the service, its session through the session store.
    const { operator } = await module.services.operators.create(
      { kind: 'cli', id: null, label: 'bench' },
      'admin@bench.example',
      'admin',
    );
    const { id: sessionId } = await module.webSessions.start({
      area: 'console',
      principalKind: 'operator',
      principalId: operator.id,
      stage: 'signed_in',
      clientIp: null,
      userAgent: null,
    });
    const cookie = `console_session=${sessionId}`;
    const served = await serveConsole(module, cookie);
    // The other checkout's console on the same database (the schema is this tree's) and session.
    baseModule = base && (await open(base));
    const baseServed = baseModule && (await serveConsole(baseModule, cookie));
    const views = new KnexConsoleViews(module.knex);
    const query = async () => {
      const rows = await views.domains({
        statuses: [FILTER.status as 'Active'],
        registrar: FILTER.registrar,
        tld: FILTER.tld,
        limit: 51,
      });
      if (rows.length !== 51) throw new Error('the query found too few rows');
    };
    const contenders = [
      { label: engine, run: served.pageRaw, times: [] as number[], serverTimes: [] as number[], cpu: 0 },
      {
        label: `${engine} (node:http client)`,
        run: served.page,
        times: [] as number[],
        serverTimes: [] as number[],
        cpu: 0,
      },
      ...(baseServed
        ? [
            {
              label: `${engine} (base)`,
              run: baseServed.pageRaw,
              times: [] as number[],
              serverTimes: [] as number[],
              cpu: 0,
            },
          ]
        : []),
    ];
    const theQuery = { label: 'query', run: query, times: [] as number[], serverTimes: [] as number[], cpu: 0 };
    for (let i = 0; i < 20; i++) for (const c of [...contenders, theQuery]) await c.run();
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let i = 0; i < ROUNDS; i++) {
      // Each round in another order, so that no page always follows the query (or the other page).
      const round = [...contenders, theQuery];
      for (let k = 0; k < i % round.length; k++) round.push(round.shift()!);
      for (const c of round) {
        const cpu = process.cpuUsage();
        const started = performance.now();
        const serverMs = await c.run();
        c.times.push(performance.now() - started);
        if (serverMs !== undefined) c.serverTimes.push(serverMs);
        c.cpu += cpuMs(cpu);
      }
    }

    const profileDir = process.env.BENCH_PROFILE_DIR;
    if (profileDir) {
      // Pages and queries alternating, as in the timed rounds, each one's span on the profile's
      // clock (monotonic microseconds), so that every sample can be assigned to the one it fell in.
      const spans: Array<[label: string, start: number, end: number]> = [];
      const now = () => Number(process.hrtime.bigint() / 1000n);
      await profile(path.join(profileDir, `${engine}.cpuprofile`), async () => {
        for (let i = 0; i < positiveInt('BENCH_PROFILE_ROUNDS', 500); i++)
          for (const c of [contenders[0]!, theQuery]) {
            const start = now();
            await c.run();
            spans.push([c === theQuery ? 'query' : 'page', start, now()]);
          }
      });
      writeFileSync(path.join(profileDir, `${engine}.spans.json`), JSON.stringify(spans));
    }

    // A filter that matches no domain (a TLD the business holds none of): found through the
    // filter's index, not by walking every name.
    const noneTimes: number[] = [];
    for (let i = 0; i < 20; i++) {
      const started = performance.now();
      const rows = await views.domains({ tld: '.xyz', limit: 51 });
      noneTimes.push(performance.now() - started);
      if (rows.length !== 0) throw new Error('the empty TLD found domains');
    }

    await served.close();
    await baseServed?.close();

    // Statements of one domain-list page and of one dashboard (with the session's own reads),
    // counted by knex: on a module given this knex instance, as a host gives its own, every
    // statement goes through knex, the hot-path reads too (src/infra/db/driver-pools.ts).
    const counting = await createResellerModule({
      database: module.knex,
      settings: { masterKey: MASTER_KEY, logLevel: 'warn', apiLog: false, backgroundJobs: false },
    });
    const countedServed = await serveConsole(counting, cookie);
    const sent: string[] = [];
    const heard = (q: { sql: string; bindings?: unknown[] }) => sent.push(`${q.sql} ${JSON.stringify(q.bindings)}`);
    module.knex.on('query', heard);
    await query();
    const querySql = sent.splice(0);
    await countedServed.page();
    const pageSql = sent.splice(0);
    const dashboard = await countedServed.get('/admin/');
    if (dashboard.status !== 200) throw new Error(`the dashboard answered ${dashboard.status}`);
    const dashboardStatements = sent.splice(0).length;
    module.knex.off('query', heard);
    await countedServed.close();
    await counting.close();
    // The query measured alone is the page's own statement: the same text and values.
    if (querySql.length !== 1 || !pageSql.includes(querySql[0]!))
      throw new Error(
        `the page did not send the query measured alone:\n${querySql.join('\n')}\n--\n${pageSql.join('\n')}`,
      );

    const queryMs = median(theQuery.times);
    return contenders.map((c) => {
      const pageMs = median(c.times);
      return [
        c.label,
        ms(pageMs),
        ms(queryMs),
        ratio(pageMs / queryMs),
        pageMs / queryMs <= 2 ? 'yes' : '**no**',
        `${ms(median(c.serverTimes))} (${ratio(median(c.serverTimes) / queryMs)})`,
        `${(c.cpu / ROUNDS).toFixed(2)} / ${(theQuery.cpu / ROUNDS).toFixed(2)} ms`,
        c === contenders[0] ? String(pageSql.length) : '',
        c === contenders[0] ? String(dashboardStatements) : '',
        c === contenders[0] ? ms(median(noneTimes)) : '',
      ];
    });
  } finally {
    await baseModule?.close();
    await module.close();
    await db.drop();
  }
}

/** A CPU profile of `work` (sampled every 100 µs), written to `file`. */
async function profile(file: string, work: () => Promise<void>): Promise<void> {
  const session = new Session();
  session.connect();
  await session.post('Profiler.enable');
  await session.post('Profiler.setSamplingInterval', { interval: 100 });
  await session.post('Profiler.start');
  try {
    await work();
  } finally {
    const { profile: taken } = await session.post('Profiler.stop');
    writeFileSync(file, JSON.stringify(taken));
    session.disconnect();
  }
  process.stderr.write(`profile written to ${file}\n`);
}

async function main(): Promise<void> {
  const rows: string[][] = [];
  const base = (await baseModule())?.factory;
  for (const engine of enginesFromEnv()) rows.push(...(await run(engine, base)));
  const markdown = [
    `The console's domain list over ${DOMAINS.toLocaleString('en')} domains (${RESELLERS} resellers), filtered by status, registrar and TLD, one page of 50, over HTTP with a session (one kept-alive connection: a bare socket client sending a browser's navigation request and reading the answer's bytes; "(node:http client)": the same page through node:http's client, as earlier runs measured it), against its keyset query alone, in-process; medians of ${ROUNDS} alternating rounds. The client runs in the server's process, so its own work counts as the page's time. Target: the page in at most 2x the query. "Server's own time": from the request reaching Koa to the response handed to the socket, without the HTTP client's work and the loopback's. CPU: this process's CPU time per page (client and server, both in this process) and per query, a measure the machine's load hardly moves. Statements are counted by knex for one request, session reads included, on a module given the benchmark's knex instance as a host gives its own (so that every statement, the hot-path reads too, goes through knex): a domain-list page, and the dashboard (the same number whatever the size of the business); the page's list statement is checked to be the query measured alone, text and values.${base ? ' "(base)": the same page served by BENCH_BASE_MODULE, alternating with the others in the same rounds.' : ''} "No match": the list's query for a TLD with no domains (median of 20). ${machine()}.`,
    '',
    table(
      [
        'engine',
        'page',
        'query alone',
        'page / query',
        'within 2x',
        "server's own time (/ query)",
        'CPU page / query',
        'page statements',
        'dashboard statements',
        'no match',
      ],
      rows,
    ),
  ].join('\n');
  writeSection('console', markdown);
  process.stdout.write(`${markdown}\n`);
}

main().catch((error) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
