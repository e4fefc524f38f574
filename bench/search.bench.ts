/**
 * Domain search benchmark: `npm run bench:search` (or `npx tsx bench/search.bench.ts`).
 *
 * A search over 20 TLDs served by a fixture registrar that takes a fixed time per call
 * (test/fixtures/registrars/latency), driven through the real HTTP API, SQLite catalogue and
 * authentication. Reports, side by side in one run:
 * - one search at a time: latency as a multiple of the registrar's per-call latency
 *   (target under 1.5x), next to a sequential baseline (one registrar call per TLD, in turn);
 * - concurrent load: searches per second, cache off (every search reaches the registrar) and on
 *   (repeated searches, the case the availability cache is for).
 *
 * The HTTP client runs in a worker thread, so it does not take the server's event loop (real
 * clients are other machines). Environment: BENCH_LATENCY_MS (100), BENCH_CONCURRENCY (50),
 * BENCH_SEARCHES (1000).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Koa from 'koa';
import { computeToken } from '../src/core/auth/api-token';
import { createResellerModule, type ResellerModule } from '../src/module';
import type { FixtureRegistrar } from '../test/fixtures/fixture-registrar';
import { writeSection } from './support/results';

const LATENCY_MS = positive('BENCH_LATENCY_MS', 100);
const CONCURRENCY = positive('BENCH_CONCURRENCY', 50);
const SEARCHES = positive('BENCH_SEARCHES', 1000);
const SINGLE_RUNS = 20;
const BASELINE_RUNS = 3;
const TLDS = [
  '.com',
  '.net',
  '.org',
  '.io',
  '.co',
  '.app',
  '.dev',
  '.shop',
  '.store',
  '.online',
  '.site',
  '.tech',
  '.blog',
  '.cloud',
  '.design',
  '.studio',
  '.agency',
  '.media',
  '.world',
  '.xyz',
];
const PLUGINS_DIR = path.resolve(__dirname, '../test/fixtures/registrars');
const MASTER_KEY = Buffer.alloc(32, 7).toString('base64');

function positive(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

interface Target {
  readonly module: ResellerModule;
  readonly registrar: FixtureRegistrar;
  /** Runs searches for `terms` with `concurrency` requests in flight, from a client in a worker thread. */
  run(terms: readonly string[], concurrency: number): Promise<{ perSecond: number; latencies: number[] }>;
  close(): Promise<void>;
}

/**
 * The load client, run in a worker thread. It checks every reply: 200, and the 20 exact names
 * all answered (a search that lost a registrar answer would be cheaper and must not count).
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { url, headers, bodies, concurrency, tldCount } = workerData;
(async () => {
  const latencies = [];
  let next = 0;
  const problems = [];
  const started = performance.now();
  await Promise.all(Array.from({ length: concurrency }, async () => {
    while (next < bodies.length) {
      const body = bodies[next++];
      const t = performance.now();
      const res = await fetch(url, { method: 'POST', headers, body });
      const reply = await res.json();
      latencies.push(performance.now() - t);
      const exact = Array.isArray(reply) ? reply.slice(0, tldCount) : [];
      if (res.status !== 200 || exact.length !== tldCount || exact.some((r) => r.status !== 'available for registration')) {
        problems.push(res.status + ' ' + JSON.stringify(reply).slice(0, 200));
      }
    }
  }));
  parentPort.postMessage({ seconds: (performance.now() - started) / 1000, latencies, problems });
})().catch((error) => parentPort.postMessage({ error: String(error) }));
`;

async function startTarget(cacheSeconds: number): Promise<Target> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'search-bench-'));
  const module = await createResellerModule({
    database: `sqlite:${path.join(dir, 'bench.sqlite')}`,
    pluginsDir: PLUGINS_DIR,
    settings: {
      masterKey: MASTER_KEY,
      logLevel: 'silent',
      searchCacheSeconds: cacheSeconds,
      plugins: { latency: { latencyMs: LATENCY_MS } },
    },
  });
  await module.migrate();
  await module.services.resellers.createGroup('bench');
  for (const tld of TLDS) {
    await module.services.catalogue.setTld({
      tld,
      group: 'bench',
      registrar: 'latency',
      prices: { register: { 1: 1000, 2: 2000 }, renew: { 1: 1100 }, transfer: { 1: 900 } },
    });
  }
  const email = 'bench@example.com';
  const { apiKey } = await module.services.resellers.create(email, 'bench', 0);
  const app = new Koa();
  app.use(module.middleware({ ownAllPaths: true }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/domains/lookup/suggestions`;
  const body = (term: string) =>
    new URLSearchParams([['searchTerm', term], ...TLDS.map((t): [string, string] => ['tldsToInclude', t])]).toString();
  return {
    module,
    registrar: module.registrars.get('latency') as FixtureRegistrar,
    async run(terms, concurrency) {
      // A token is good for its UTC hour (and 60 s past it): made afresh for each run of a few seconds.
      const headers = {
        'content-type': 'application/x-www-form-urlencoded',
        username: email,
        token: computeToken(email, apiKey, new Date()),
      };
      const worker = new Worker(CLIENT, {
        eval: true,
        workerData: { url, headers, bodies: terms.map(body), concurrency, tldCount: TLDS.length },
      });
      const result = await new Promise<{ seconds: number; latencies: number[]; problems: string[]; error?: string }>(
        (resolve, reject) => {
          worker.once('message', resolve);
          worker.once('error', reject);
        },
      );
      await worker.terminate();
      if (result.error) throw new Error(result.error);
      if (result.problems.length > 0)
        throw new Error(`${result.problems.length} searches went wrong, first: ${result.problems[0]}`);
      return { perSecond: terms.length / result.seconds, latencies: result.latencies };
    },
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeAllConnections();
      await closed;
      await module.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

const percentile = (values: number[], p: number) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
};
const times = (ms: number) => `${(ms / LATENCY_MS).toFixed(2)}x`;
const fmt = (ms: number) => `${ms.toFixed(1)} ms`;

/** Runs `total` searches with `concurrency` in flight; terms come from `termOf(i)`. */
async function load(target: Target, total: number, concurrency: number, termOf: (i: number) => string) {
  const { perSecond, latencies } = await target.run(
    Array.from({ length: total }, (_, i) => termOf(i)),
    concurrency,
  );
  return { perSecond, p50: percentile(latencies, 50), p95: percentile(latencies, 95) };
}

/** What a sequential search would cost: one registrar call per TLD, each awaited before the next. */
async function sequentialBaseline(registrar: FixtureRegistrar, term: string): Promise<number> {
  const started = performance.now();
  for (const tld of TLDS) {
    await registrar.checkAvailability([`${term}${tld}`], {
      signal: new AbortController().signal,
      transactionId: 'bench',
    });
  }
  return performance.now() - started;
}

async function main(): Promise<void> {
  const uncached = await startTarget(0);
  const cached = await startTarget(30);
  try {
    // Warm-up: let the JIT compile the hot paths before anything is measured.
    await load(uncached, 500, CONCURRENCY, (i) => `warmup${i}x`);
    await load(cached, 500, CONCURRENCY, (i) => `warmup${i}x`);

    const callsBefore = uncached.registrar.checks.length;
    const single = (
      await uncached.run(
        Array.from({ length: SINGLE_RUNS }, (_, i) => `single${i}x`),
        1,
      )
    ).latencies;
    const callsPerSearch = (uncached.registrar.checks.length - callsBefore) / SINGLE_RUNS;
    const namesPerSearch = uncached.registrar.checks.slice(callsBefore).flat().length / SINGLE_RUNS;

    const baseline: number[] = [];
    for (let i = 0; i < BASELINE_RUNS; i++)
      baseline.push(await sequentialBaseline(uncached.registrar, `baseline${i}x`));

    const cold = await load(uncached, SEARCHES, CONCURRENCY, (i) => `load${i}x`);
    const warm = await load(cached, SEARCHES, CONCURRENCY, (i) => `popular${i % 20}x`);

    const cpu = os.cpus();
    const lines: string[] = [];
    const out = (line = '') => {
      lines.push(line);
    };
    out(`## 3. Domain search: ${TLDS.length} TLDs, fixture registrar at ${LATENCY_MS} ms per call`);
    out();
    out(
      `node ${process.version}, ${cpu.length} x ${cpu[0]?.model ?? 'unknown CPU'}, SQLite, through HTTP with authentication (client in a worker thread)\n`,
    );
    out(
      `One search checks ${namesPerSearch.toFixed(0)} names (20 exact + suggestions) in ${callsPerSearch.toFixed(1)} registrar calls made at the same time.\n`,
    );
    out('| measurement | p50 | p95 | multiple of per-call latency (p50) |');
    out('|---|---|---|---|');
    out(
      `| one search at a time (${SINGLE_RUNS} runs, cache off) | ${fmt(percentile(single, 50))} | ${fmt(percentile(single, 95))} | **${times(percentile(single, 50))}** (target < 1.5x) |`,
    );
    out(
      `| sequential baseline: one call per TLD in turn (${BASELINE_RUNS} runs) | ${fmt(percentile(baseline, 50))} | ${fmt(percentile(baseline, 95))} | ${times(percentile(baseline, 50))} |`,
    );
    out(
      `| under load, ${CONCURRENCY} concurrent, cache off | ${fmt(cold.p50)} | ${fmt(cold.p95)} | ${times(cold.p50)} |`,
    );
    out(
      `| under load, ${CONCURRENCY} concurrent, cache on (20 repeated terms) | ${fmt(warm.p50)} | ${fmt(warm.p95)} | ${times(warm.p50)} |`,
    );
    out('');
    out('| throughput | searches/s |');
    out('|---|---|');
    out(
      `| ${SEARCHES} searches, ${CONCURRENCY} concurrent, cache off (distinct terms) | **${cold.perSecond.toFixed(0)}** |`,
    );
    out(
      `| ${SEARCHES} searches, ${CONCURRENCY} concurrent, cache on (20 repeated terms) | **${warm.perSecond.toFixed(0)}** |`,
    );
    out(
      `\nAt ${CONCURRENCY} concurrent searches of ${LATENCY_MS} ms registrar calls, the ceiling without a cache is ${((CONCURRENCY * 1000) / LATENCY_MS).toFixed(0)} searches/s.`,
    );
    writeSection('search', lines.join('\n'));
  } finally {
    await uncached.close();
    await cached.close();
  }
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
