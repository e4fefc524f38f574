/**
 * Soak test (not in CI): `npm run soak` (SOAK_MINUTES=10 by default).
 *
 * The module served by a Koa server in this process, on SQLite, with its request log at info
 * (to /dev/null) and background reconciliation on, takes a fixed rate of mixed requests from a
 * client in a worker thread: balance reads, searches, registrations (some the sandbox never
 * answers, settled later by reconciliation), renewals, domain information, pricing, and requests
 * that fail authentication or hit unknown routes. Every SOAK_SAMPLE_SECONDS it samples, after a
 * full garbage collection: RSS, the live heap, Node's active handles and open file descriptors.
 * The report compares the second minute with the last: a leak shows as steady growth.
 *
 * Environment: SOAK_MINUTES (10), SOAK_RATE (requests/s, 60), SOAK_SAMPLE_SECONDS (10).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import Koa from 'koa';
import pino from 'pino';
import { createLogger } from '../src/infra/logging';
import { createResellerModule } from '../src/module';
import { writeSection } from './support/results';
import { machine, mib, table } from './support/stats';

const MINUTES = Number(process.env.SOAK_MINUTES ?? 10);
const RATE = Number(process.env.SOAK_RATE ?? 60);
const SAMPLE_SECONDS = Number(process.env.SOAK_SAMPLE_SECONDS ?? 10);
const MASTER_KEY = Buffer.alloc(32, 3).toString('base64');
const RESELLERS = 10;

interface Sample {
  at: number;
  rss: number;
  heap: number;
  handles: number;
  fds: number;
  sent: number;
  answered: number;
  failed: number;
  p99: number;
}

/**
 * The client: a fixed rate, whatever the server's pace (requests are not waited for before the
 * next is sent), with the mix below. Reports its counts and the window's p99 on request.
 */
const CLIENT = `
const { parentPort, workerData } = require('node:worker_threads');
const { createHmac } = require('node:crypto');
const { url, resellers, rate } = workerData;
const hour = (d) => { const t = (n) => String(n).padStart(2, '0'); return t(d.getUTCFullYear() % 100) + '-' + t(d.getUTCMonth() + 1) + '-' + t(d.getUTCDate()) + ' ' + t(d.getUTCHours()); };
const token = (email, key) => Buffer.from(createHmac('sha256', email + ':' + hour(new Date())).update(key).digest('hex')).toString('base64');
const form = (o) => new URLSearchParams(o).toString();
let statuses = {}, serial = 0, sent = 0, answered = 0, failed = 0, unexpected = [], latencies = [], running = true;
const owned = resellers.map(() => []);
function pick() {
  const i = Math.floor(Math.random() * resellers.length);
  const r = resellers[i];
  const auth = { username: r.email, token: token(r.email, r.apiKey) };
  const post = (path, body) => ({ path, init: { method: 'POST', headers: { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, body: form(body) } });
  const roll = Math.random();
  if (roll < 0.35) return { path: '/billing/credits', init: { headers: auth } };
  if (roll < 0.45) return post('/domains/lookup/suggestions', { searchTerm: 'soak' + (serial++ % 50), 'tldsToInclude[0]': '.com', 'tldsToInclude[1]': '.net' });
  if (roll < 0.60) {
    const name = (Math.random() < 0.1 ? 'lost-' : '') + 'soak-' + Date.now().toString(36) + '-' + serial++ + '.com';
    owned[i].push(name);
    if (owned[i].length > 50) owned[i].shift();
    return post('/order/domains/register', { domain: name, regperiod: '1', 'nameservers[ns1]': 'ns1.example.net', 'nameservers[ns2]': 'ns2.example.net',
      'contacts[registrant][firstname]': 'Ada', 'contacts[registrant][lastname]': 'Lovelace', 'contacts[registrant][email]': 'ada@example.com',
      'contacts[registrant][address1]': '1 Row', 'contacts[registrant][city]': 'London', 'contacts[registrant][country]': 'GB',
      'contacts[registrant][postcode]': 'N1', 'contacts[registrant][phonenumber]': '+44.20' });
  }
  if (roll < 0.68 && owned[i].length > 0) return post('/order/domains/renew', { domain: owned[i][Math.floor(Math.random() * owned[i].length)], regperiod: '1' });
  if (roll < 0.80 && owned[i].length > 0) return { path: '/domains/' + owned[i][Math.floor(Math.random() * owned[i].length)] + '/information', init: { headers: auth } };
  if (roll < 0.88) return { path: '/tlds/pricing', init: { headers: auth } };
  if (roll < 0.94) return { path: '/billing/credits', init: { headers: { username: r.email, token: token(r.email, 'wrong') } } };
  return { path: '/no/such/route', init: { headers: auth } };
}
async function one() {
  const { path, init } = pick();
  sent++;
  const t = performance.now();
  try {
    const res = await fetch(url + path, init);
    await res.text();
    latencies.push(performance.now() - t);
    answered++;
    const kind = path.startsWith('/domains/') && path.endsWith('/information') ? '/domains/{domain}/information' : path;
    statuses[kind + ' ' + res.status] = (statuses[kind + ' ' + res.status] || 0) + 1;
    // Expected answers: success, validation/ownership/auth/route errors, the registrar's own failures.
    if (res.status >= 500 && res.status !== 502 && res.status !== 504) { failed++; if (unexpected.length < 5) unexpected.push(res.status + ' ' + path); }
  } catch (e) { failed++; if (unexpected.length < 5) unexpected.push(String(e)); }
}
const started = performance.now();
(function tick() {
  if (!running) return;
  const due = Math.floor(((performance.now() - started) / 1000) * rate);
  while (sent < due) void one();
  setTimeout(tick, 5);
})();
parentPort.on('message', (m) => {
  if (m === 'stop') running = false;
  const sorted = latencies.sort((a, b) => a - b);
  const p99 = sorted.length ? sorted[Math.min(sorted.length - 1, Math.ceil(0.99 * sorted.length) - 1)] : 0;
  latencies = [];
  parentPort.postMessage({ sent, answered, failed, p99, unexpected, statuses });
});
`;

async function main(): Promise<void> {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('run with --expose-gc (npm run soak does)');
  const dir = mkdtempSync(path.join(os.tmpdir(), 'soak-'));
  const module = await createResellerModule({
    database: `sqlite:${path.join(dir, 'soak.sqlite')}`,
    logger: createLogger('info', pino.destination({ dest: '/dev/null', sync: false })),
    settings: {
      // One client address sends the bad tokens too: a throttle that blocked it would end the soak.
      authMaxFailures: 10_000,
      masterKey: MASTER_KEY,
      registrarTimeoutMs: 500,
      reconcileIntervalMs: 2000,
      reconcileAfterMs: 500,
      searchCacheSeconds: 5,
      plugins: { sandbox: { latencyMs: 5 } },
    },
  });
  await module.migrate();
  await module.services.resellers.createGroup('soak');
  for (const tld of ['.com', '.net']) {
    await module.services.catalogue.setTld({
      tld,
      group: 'soak',
      registrar: 'sandbox',
      prices: { register: { 1: 1000 }, renew: { 1: 1100 }, transfer: { 1: 900 } },
    });
  }
  const resellers = [];
  for (let i = 0; i < RESELLERS; i++) {
    const email = `soak-${i}@example.com`;
    const { apiKey } = await module.services.resellers.create(email, 'soak', 100_000_000_00);
    resellers.push({ email, apiKey });
  }
  module.startBackgroundJobs();
  const app = new Koa();
  app.use(module.middleware({ ownAllPaths: true }));
  const server = app.listen(0, '127.0.0.1');
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const worker = new Worker(CLIENT, { eval: true, workerData: { url, resellers, rate: RATE } });
  const ask = (message: string) =>
    new Promise<{ sent: number; answered: number; failed: number; p99: number; unexpected: string[] }>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(message);
    });
  const samples: Sample[] = [];
  const started = Date.now();
  const end = started + MINUTES * 60_000;
  let unexpected: string[] = [];
  while (Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, Math.min(SAMPLE_SECONDS * 1000, end - Date.now())));
    const client = await ask('sample');
    unexpected = client.unexpected;
    collect();
    const memory = process.memoryUsage();
    const sample: Sample = {
      at: (Date.now() - started) / 1000,
      rss: memory.rss,
      heap: memory.heapUsed,
      handles: process.getActiveResourcesInfo().length,
      fds: readdirSync('/proc/self/fd').length,
      sent: client.sent,
      answered: client.answered,
      failed: client.failed,
      p99: client.p99,
    };
    samples.push(sample);
    process.stderr.write(
      `soak ${sample.at.toFixed(0)} s: ${sample.sent} sent, ${sample.failed} failed, rss ${mib(sample.rss)}, live heap ${mib(sample.heap)}, ${sample.handles} handles, ${sample.fds} fds, p99 ${sample.p99.toFixed(0)} ms\n`,
    );
  }
  const final = await ask('stop');
  if (process.env.SOAK_VERBOSE)
    process.stderr.write(`${JSON.stringify((final as unknown as { statuses: unknown }).statuses)}\n`);
  await new Promise((resolve) => setTimeout(resolve, 2000));
  await worker.terminate();
  const closed = new Promise<void>((resolve) => server.close(() => resolve()));
  server.closeAllConnections();
  await closed;
  const orders: Array<{ status: string; n: number }> = await module
    .knex('orders')
    .select('status')
    .count({ n: '*' })
    .groupBy('status');
  await module.close();
  rmSync(dir, { recursive: true, force: true });

  // The second minute against the last: past warm-up (JIT, caches, pools filling) to the end.
  const window = (from: number, to: number) => samples.filter((s) => s.at > from && s.at <= to);
  const early =
    window(60, 120).length > 0 ? window(60, 120) : samples.slice(0, Math.max(1, Math.floor(samples.length / 3)));
  const late =
    window(MINUTES * 60 - 60, MINUTES * 60).length > 0
      ? window(MINUTES * 60 - 60, MINUTES * 60)
      : samples.slice(-Math.max(1, Math.floor(samples.length / 3)));
  const mean = (list: Sample[], pick: (s: Sample) => number) => list.reduce((n, s) => n + pick(s), 0) / list.length;
  const growth = (pick: (s: Sample) => number, format: (n: number) => string) => {
    const a = mean(early, pick);
    const b = mean(late, pick);
    return [format(a), format(b), `${b >= a ? '+' : ''}${(((b - a) / a) * 100).toFixed(1)}%`];
  };
  const seconds = samples.at(-1)!.at;
  writeSection(
    'soak',
    [
      '## Soak: mixed load at a fixed rate',
      '',
      `${MINUTES} min at ${RATE} requests/s (${final.sent.toLocaleString('en')} sent, ${(final.sent / seconds).toFixed(1)}/s achieved, ${final.failed} failed or unexpected${unexpected.length ? `: ${unexpected.join(', ')}` : ''}), SQLite, request log at info, background reconciliation every 2 s; mix: 35% balance, 10% search, 15% register (1 in 10 a name the sandbox never answers), 8% renew, 12% domain information, 8% pricing, 6% bad token, 6% unknown route. Sampled every ${SAMPLE_SECONDS} s after a full collection. Orders at the end: ${orders.map((o) => `${o.n} ${o.status}`).join(', ')}. ${machine()}.`,
      '',
      table(
        ['measure', 'second minute (mean)', 'last minute (mean)', 'growth'],
        [
          ['RSS', ...growth((s) => s.rss, mib)],
          ['live heap (after full GC)', ...growth((s) => s.heap, mib)],
          [
            'active handles (Node)',
            ...growth(
              (s) => s.handles,
              (n) => n.toFixed(0),
            ),
          ],
          [
            'open file descriptors',
            ...growth(
              (s) => s.fds,
              (n) => n.toFixed(0),
            ),
          ],
          [
            'p99 latency of the window',
            ...growth(
              (s) => s.p99,
              (n) => `${n.toFixed(0)} ms`,
            ),
          ],
        ],
      ),
    ].join('\n'),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
