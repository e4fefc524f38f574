/**
 * Console benchmark: `npm run bench:console` (or `npx tsx bench/console.bench.ts`).
 *
 * The operator console's domain list over BENCH_DOMAINS (100,000) domains held by 50 resellers,
 * with three filters (status, registrar, TLD) and one page of 50, served over HTTP by the real
 * console (session cookie, page table, Eta, layout). Side by side in one run, alternating: the
 * page, and its keyset query alone (the same read the page makes, through the console's read
 * model, in-process). Target: the page in at most 2x the query's time. Also the CPU time per page
 * and per query, the SQL statements of one page and of one dashboard (a bounded number, whatever
 * the size of the business), and the query for a TLD with no domains (an index seek, not a walk).
 * BENCH_ENGINES=sqlite,mariadb (default both); BENCH_ROUNDS (200).
 */
import type { AddressInfo } from 'node:net';
import Koa from 'koa';
import { ulid } from '../src/core/common/ids';
import { KnexConsoleViews } from '../src/infra/repositories/knex-console-views';
import { createResellerModule } from '../src/module';
import { type Engine, enginesFromEnv, freshDatabase } from './support/databases';
import { writeSection } from './support/results';
import { median, ms, positiveInt, ratio, table } from './support/stats';

const DOMAINS = positiveInt('BENCH_DOMAINS', 100_000);
const ROUNDS = positiveInt('BENCH_ROUNDS', 200);
const RESELLERS = 50;
const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');
const TLDS = ['.com', '.net', '.org', '.io'];
const STATUSES = ['Active', 'Active', 'Active', 'Expired', 'Cancelled'];
const FILTER = { status: 'Active', registrar: 'sandbox', tld: '.com' };

async function run(engine: Engine): Promise<string[]> {
  const db = await freshDatabase(engine, 'console');
  const module = await createResellerModule({
    database: db.url,
    settings: { masterKey: MASTER_KEY, logLevel: 'warn', apiLog: false, backgroundJobs: false },
  });
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
    const app = new Koa();
    app.use(module.console({ mountPath: '/admin' }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/admin/domains?status=Active&registrar=sandbox&tld=.com`;
    const cookie = `console_session=${sessionId}`;
    const views = new KnexConsoleViews(module.knex);
    const page = async () => {
      const response = await fetch(url, { headers: { cookie } });
      const body = await response.text();
      if (response.status !== 200 || !body.includes('id="domains"'))
        throw new Error(`the page answered ${response.status}`);
    };
    const query = async () => {
      const rows = await views.domains({
        statuses: [FILTER.status as 'Active'],
        registrar: FILTER.registrar,
        tld: FILTER.tld,
        limit: 51,
      });
      if (rows.length !== 51) throw new Error('the query found too few rows');
    };
    for (let i = 0; i < 20; i++) {
      await page();
      await query();
    }
    const pageTimes: number[] = [];
    const queryTimes: number[] = [];
    let pageCpu = 0;
    let queryCpu = 0;
    const cpuMs = (since: NodeJS.CpuUsage) => {
      const used = process.cpuUsage(since);
      return (used.user + used.system) / 1000;
    };
    for (let i = 0; i < ROUNDS; i++) {
      let cpu = process.cpuUsage();
      let started = performance.now();
      await page();
      pageTimes.push(performance.now() - started);
      pageCpu += cpuMs(cpu);
      cpu = process.cpuUsage();
      started = performance.now();
      await query();
      queryTimes.push(performance.now() - started);
      queryCpu += cpuMs(cpu);
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

    // Statements of one domain-list page and of one dashboard (with the session's own reads), counted at the driver.
    let statements = 0;
    const count = () => {
      statements++;
    };
    module.knex.on('query', count);
    await page();
    const pageStatements = statements;
    statements = 0;
    const dashboard = await fetch(url.replace(/\/domains\?.*$/, '/'), { headers: { cookie } });
    if (dashboard.status !== 200) throw new Error(`the dashboard answered ${dashboard.status}`);
    module.knex.off('query', count);
    await new Promise((resolve) => server.close(resolve));

    const pageMs = median(pageTimes);
    const queryMs = median(queryTimes);
    return [
      engine,
      ms(pageMs),
      ms(queryMs),
      ratio(pageMs / queryMs),
      pageMs / queryMs <= 2 ? 'yes' : '**no**',
      `${(pageCpu / ROUNDS).toFixed(2)} / ${(queryCpu / ROUNDS).toFixed(2)} ms`,
      String(pageStatements),
      String(statements),
      ms(median(noneTimes)),
    ];
  } finally {
    await module.close();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const rows: string[][] = [];
  for (const engine of enginesFromEnv()) rows.push(await run(engine));
  const markdown = [
    `The console's domain list over ${DOMAINS.toLocaleString('en')} domains (${RESELLERS} resellers), filtered by status, registrar and TLD, one page of 50, over HTTP with a session; against its keyset query alone, in-process; medians of ${ROUNDS} alternating rounds. Target: the page in at most 2x the query. CPU: this process's CPU time per page (client and server, both in this process) and per query, a measure the machine's load hardly moves. Statements are counted at the driver for one request, session reads included: a domain-list page, and the dashboard (the same number whatever the size of the business). "No match": the list's query for a TLD with no domains (median of 20).`,
    '',
    table(
      [
        'engine',
        'page',
        'query alone',
        'page / query',
        'within 2x',
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
