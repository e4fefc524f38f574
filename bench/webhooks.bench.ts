/**
 * Webhook delivery: `npm run bench:webhooks`.
 *
 * BENCH_EVENTS (10,000) `credit.changed` events, spread over 10 resellers each with its own
 * endpoint, delivered to 10 loopback receivers (a process of their own, answering 204) by the
 * module's delivery worker (claims in short transactions committed before sending, signing, the
 * attempt recorded under its claim), against a bare loop in the same process sending the same
 * signed POSTs with the same concurrency over the same kind of keep-alive connections, with no
 * database. The events are committed and dispatched before the clock starts; the worker's time is
 * from start to the last delivery recorded. The heap is sampled every 100 ms while it runs: it
 * should stay flat (the worker holds only what is in flight). Target: ≥ 0.5 of the bare rate.
 *
 * Environment: BENCH_ENGINES (sqlite,mariadb), BENCH_EVENTS (10000), BENCH_ROUNDS (4),
 * BENCH_MARIADB_URL; BENCH_NO_WRITE=1 only prints.
 */
import http from 'node:http';
import { TOKENS } from '../src/core/tokens';
import { webhookHeaders } from '../src/core/webhooks/signature';
import { createResellerModule } from '../src/module';
import { enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { type Receivers, startReceivers } from './support/receivers';
import { writeSection } from './support/results';
import { machine, median, mib, perSecond, positiveInt, ratio, table, verdict } from './support/stats';

const EVENTS = positiveInt('BENCH_EVENTS', 10_000);
const ROUNDS = positiveInt('BENCH_ROUNDS', 4);
const ENDPOINTS = 10;
const CONCURRENCY = 32;
const MASTER_KEY = Buffer.alloc(32, 13).toString('base64');
const TARGET = 0.5;

interface Run {
  readonly perSecond: number;
  /** CPU of this process (user + system) per delivery, µs: the sender's own, the receivers are elsewhere. */
  readonly cpuMicros: number;
  /** SQL statements per delivery (COMMIT included); 0 for the bare loop. */
  readonly statements: number;
  readonly heapStart: number;
  readonly heapPeak: number;
  readonly heapEnd: number;
}

/** Samples the heap every 100 ms while `work` runs; the CPU of this process over the run. */
async function measured(count: number, work: () => Promise<void>, statements = () => 0): Promise<Run> {
  global.gc?.();
  const heapStart = process.memoryUsage().heapUsed;
  let heapPeak = heapStart;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 100);
  const started = process.hrtime.bigint();
  const cpu = process.cpuUsage();
  await work();
  const used = process.cpuUsage(cpu);
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  clearInterval(sampler);
  global.gc?.();
  return {
    perSecond: count / seconds,
    cpuMicros: (used.user + used.system) / count,
    statements: statements() / count,
    heapStart,
    heapPeak,
    heapEnd: process.memoryUsage().heapUsed,
  };
}

/** The module: events committed and dispatched first, then the worker delivers them all. */
async function moduleRun(engine: Engine, receivers: Receivers): Promise<Run> {
  const db = await freshDatabase(engine, 'webhooks');
  const module = await createResellerModule({
    database: db.url,
    settings: {
      masterKey: MASTER_KEY,
      logLevel: 'silent',
      webhookAllowInsecureTargets: true,
      webhookConcurrency: CONCURRENCY,
      seedDemo: false,
    },
  });
  try {
    await module.migrate();
    const { resellers, webhooks, credit } = module.services;
    await resellers.createGroup('bench');
    const ids: string[] = [];
    for (let i = 0; i < ENDPOINTS; i++) {
      const { reseller } = await resellers.create(`hooks-${i}@example.com`, 'bench', 0);
      await webhooks.add({ resellerId: reseller.id }, receivers.urls[i]!, ['credit.changed']);
      ids.push(reseller.id);
    }
    for (let i = 0; i < EVENTS; i += 50)
      await Promise.all(
        Array.from({ length: Math.min(50, EVENTS - i) }, (_, j) => credit.adjust(ids[(i + j) % ENDPOINTS]!, 1, null)),
      );
    await module.container.get(TOKENS.outboxDispatcher).drain();
    const count = async () =>
      Number(
        (await module.knex('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' }).first())?.n ?? 0,
      );
    const worker = module.container.get(TOKENS.webhookDeliveryWorker);
    // The worker's statements; the bench's own polling (count) is not counted.
    let statements = 0;
    module.knex.on('query', (query: { sql: string }) => {
      if (!/^select count/i.test(query.sql)) statements++;
    });
    return await measured(
      EVENTS,
      async () => {
        worker.start();
        while ((await count()) < EVENTS) await new Promise((resolve) => setTimeout(resolve, 50));
        await worker.stop();
      },
      () => statements,
    );
  } finally {
    await module.close();
    await db.drop();
  }
}

/** The same signed POSTs from a loop with the same concurrency, no database. */
async function bareRun(receivers: Receivers): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: CONCURRENCY, scheduling: 'lifo' });
  const secret = `whsec_${Buffer.alloc(24, 5).toString('base64')}`;
  const post = (i: number) =>
    new Promise<void>((resolve, reject) => {
      const id = `evt_${String(i).padStart(26, '0')}`;
      const body = `{"id":"${id}","type":"credit.changed","version":1,"timestamp":"${new Date().toISOString()}","resellerId":"r${i % ENDPOINTS}","data":{"resellerId":"r${i % ENDPOINTS}","entryId":"e${i}","amount":1,"kind":"top_up","orderId":null,"balance":${i}}}`;
      const headers = webhookHeaders([secret], id, Math.floor(Date.now() / 1000), body);
      const req = http.request(receivers.urls[i % ENDPOINTS]!, {
        method: 'POST',
        agent,
        headers: { ...headers, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      });
      req.on('response', (res) => {
        res.resume();
        res.on('end', () => (res.statusCode === 204 ? resolve() : reject(new Error(`HTTP ${res.statusCode}`))));
      });
      req.on('error', reject);
      req.end(body);
    });
  try {
    return await measured(EVENTS, async () => {
      let next = 0;
      await Promise.all(
        Array.from({ length: CONCURRENCY }, async () => {
          while (next < EVENTS) await post(next++);
        }),
      );
    });
  } finally {
    agent.destroy();
  }
}

async function main(): Promise<void> {
  const receivers = await startReceivers(ENDPOINTS);
  const rows: string[][] = [];
  try {
    for (const engine of enginesFromEnv(['sqlite', 'mariadb'])) {
      const modules: Run[] = [];
      const bares: Run[] = [];
      for (let round = 0; round < ROUNDS; round++) {
        // Alternating, so that the machine's moods fall on both.
        if (round % 2 === 0) {
          modules.push(await moduleRun(engine, receivers));
          bares.push(await bareRun(receivers));
        } else {
          bares.push(await bareRun(receivers));
          modules.push(await moduleRun(engine, receivers));
        }
        process.stderr.write(`webhooks ${engine}: round ${round + 1}/${ROUNDS} done\n`);
      }
      const mean = (runs: Run[], pick: (r: Run) => number = (r) => r.perSecond) =>
        runs.reduce((n, r) => n + pick(r), 0) / runs.length;
      const heap = (runs: Run[]) =>
        runs.map((r) => `${mib(r.heapStart)} → peak ${mib(r.heapPeak)} → ${mib(r.heapEnd)}`).join('; ');
      // Each round's module run against the bare run beside it.
      const perRound = modules.map((m, i) => m.perSecond / bares[i]!.perSecond).sort((a, b) => a - b);
      const cpu = (runs: Run[]) => `${mean(runs, (r) => r.cpuMicros).toFixed(0)} µs`;
      rows.push(
        [
          engine,
          'module (outbox → claims → signed POSTs → recorded)',
          perSecond(mean(modules)),
          cpu(modules),
          mean(modules, (r) => r.statements).toFixed(3),
          heap(modules),
          verdict(mean(modules) / mean(bares), TARGET),
          `${ratio(median(perRound))} (${ratio(perRound[0]!)}–${ratio(perRound[perRound.length - 1]!)})`,
          ratio(mean(bares, (r) => r.cpuMicros) / mean(modules, (r) => r.cpuMicros)),
        ],
        [
          engine,
          'bare loop (the same signed POSTs, no database)',
          perSecond(mean(bares)),
          cpu(bares),
          '0',
          heap(bares),
          ratio(1),
          '',
          ratio(1),
        ],
      );
    }
  } finally {
    receivers.stop();
  }
  writeSection(
    'webhooks',
    [
      '## Webhook delivery',
      '',
      `${EVENTS.toLocaleString('en')} events to ${ENDPOINTS} endpoints on loopback (receivers in a process of their own answering 204), ${CONCURRENCY} attempts in flight, ${ROUNDS} alternating rounds. ${machine()}.`,
      '',
      table(
        [
          'database',
          'sender',
          'deliveries/s',
          'sender CPU per delivery',
          'statements per delivery',
          'heap used (start → peak → end)',
          'ratio to bare (deliveries/s)',
          'ratio per round: median (lowest–highest)',
          'ratio to bare (CPU per delivery)',
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
