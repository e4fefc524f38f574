/**
 * Webhook delivery while events are being made: `npm run bench:webhooks-live`.
 *
 * 16 resellers each have their credit adjusted in a loop (one `credit.changed` event each time),
 * pausing BENCH_PAUSE_MS (50) between adjustments, until BENCH_EVENTS (3,000) events are made:
 * a rate the delivery worker keeps up with, as in a business that is not saturated. Two
 * operator-wide endpoints take every event (receivers in a process of their own answering 204).
 * Measured from the first adjustment until every delivery is recorded: this process's CPU (the
 * module, its worker and the adjusting loops; not the receivers) and the statements the module
 * sends through knex, each per event. Where `bench:webhooks` measures a backlog drained by claim
 * rounds, this measures deliveries made as their events are dispatched, which the dispatch hands
 * to its own worker already claimed (docs/events.md, "Fresh deliveries skip the claim round").
 *
 * Environment: BENCH_ENGINES (mariadb), BENCH_EVENTS, BENCH_PAUSE_MS, BENCH_ROUNDS (3),
 * BENCH_BASE_MODULE (another checkout's src/module.ts, run in alternating rounds beside this
 * one: a before/after comparison), BENCH_MARIADB_URL; BENCH_NO_WRITE=1 only prints.
 */
import { TOKENS } from '../src/core/tokens';
import { connectDatabase, parseDatabaseUrl } from '../src/infra/db/connect';
import { createResellerModule } from '../src/module';
import { baseModule, type ModuleFactory } from './support/base-module';
import { databaseCpuSeconds, enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { startReceivers } from './support/receivers';
import { writeSection } from './support/results';
import { machine, median, positiveInt, table } from './support/stats';

const EVENTS = positiveInt('BENCH_EVENTS', 3000);
const PAUSE_MS = positiveInt('BENCH_PAUSE_MS', 50);
const ROUNDS = positiveInt('BENCH_ROUNDS', 3);
const RESELLERS = 16;
const MASTER_KEY = Buffer.alloc(32, 17).toString('base64');

/** A module to measure: this tree's, or another checkout's (its own tokens: a container knows only its own). */
interface Contender {
  readonly label: string;
  readonly factory: ModuleFactory;
  readonly tokens: typeof TOKENS;
}

interface Round {
  readonly cpuMicrosPerEvent: number;
  /** The local MariaDB's CPU per event (NaN where there is none to read). */
  readonly databaseCpuMicrosPerEvent: number;
  readonly statementsPerEvent: number;
  readonly eventsPerSecond: number;
  /** Deliveries the dispatch handed to the worker claimed, of all (undefined: a module without the hand-off). */
  readonly handedOver: number | undefined;
}

async function round(engine: Engine, { factory, tokens }: Contender, urls: readonly string[]): Promise<Round> {
  const db = await freshDatabase(engine, 'webhooks_live');
  const module = await factory({
    database: db.url,
    settings: { masterKey: MASTER_KEY, logLevel: 'silent', webhookAllowInsecureTargets: true },
  });
  const counter = connectDatabase(parseDatabaseUrl(db.url));
  try {
    await module.migrate();
    await module.services.resellers.createGroup('bench');
    const resellers: string[] = [];
    for (let i = 0; i < RESELLERS; i++)
      resellers.push(
        (await module.services.resellers.create(`live-${i}@bench.example`, 'bench', 1_000_000)).reseller.id,
      );
    for (const url of urls) await module.services.webhooks.add('operator', url);
    const worker = module.container.get(tokens.webhookDeliveryWorker) as unknown as {
      takeFresh?: unknown;
      start(): void;
    };
    // How many deliveries the dispatch hands over, where the module does.
    let handedOver: number | undefined;
    if (typeof worker.takeFresh === 'function') {
      handedOver = 0;
      const take = (worker.takeFresh as (reserved: number, claimed: readonly unknown[]) => Promise<void>).bind(worker);
      worker.takeFresh = (reserved: number, claimed: readonly unknown[]) => {
        handedOver! += claimed.length;
        return take(reserved, claimed);
      };
    }
    worker.start();
    let statements = 0;
    module.knex.on('query', () => statements++);
    const delivered = async () =>
      Number((await counter('webhook_deliveries').where({ status: 'delivered' }).count({ n: '*' }).first())?.n ?? 0);

    const databaseCpu = databaseCpuSeconds(engine);
    const databaseCpuBefore = databaseCpu?.() ?? Number.NaN;
    const cpu = process.cpuUsage();
    const started = performance.now();
    let made = 0;
    await Promise.all(
      resellers.map(async (id) => {
        while (made < EVENTS) {
          made++;
          await module.services.credit.adjust(id, 1, null);
          await new Promise((resolve) => setTimeout(resolve, PAUSE_MS));
        }
      }),
    );
    const until = Date.now() + 120_000;
    while ((await delivered()) < made * urls.length) {
      if (Date.now() > until) throw new Error('the deliveries were not all recorded within 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const used = process.cpuUsage(cpu);
    const seconds = (performance.now() - started) / 1000;
    return {
      cpuMicrosPerEvent: (used.user + used.system) / made,
      databaseCpuMicrosPerEvent: (((databaseCpu?.() ?? Number.NaN) - databaseCpuBefore) * 1e6) / made,
      statementsPerEvent: statements / made,
      eventsPerSecond: made / seconds,
      handedOver: handedOver === undefined ? undefined : handedOver / (made * urls.length),
    };
  } finally {
    await counter.destroy();
    await module.close();
    await db.drop();
  }
}

async function main(): Promise<void> {
  const contenders: Contender[] = [{ label: 'this tree', factory: createResellerModule, tokens: TOKENS }];
  const base = await baseModule();
  if (base) contenders.push({ ...base, label: `the checkout at ${base.commit} (BENCH_BASE_MODULE)` });
  const receivers = await startReceivers(2);
  const rows: string[][] = [];
  try {
    for (const engine of enginesFromEnv(['mariadb'])) {
      const rounds = contenders.map(() => [] as Round[]);
      for (let r = 0; r < ROUNDS; r++) {
        const order = contenders.map((_, i) => i);
        if (r % 2 === 1) order.reverse();
        for (const i of order) {
          rounds[i]!.push(await round(engine, contenders[i]!, receivers.urls));
          process.stderr.write(`webhooks live ${engine}: round ${r + 1}, ${contenders[i]!.label} done\n`);
        }
      }
      for (const [i, c] of contenders.entries()) {
        const of = (pick: (x: Round) => number) => median(rounds[i]!.map(pick));
        const handed = rounds[i]!.map((x) => x.handedOver);
        rows.push([
          engine,
          c.label,
          of((x) => x.eventsPerSecond).toFixed(0),
          `${(of((x) => x.cpuMicrosPerEvent) / 1000).toFixed(2)} ms (${rounds[i]!.map((x) => (x.cpuMicrosPerEvent / 1000).toFixed(2)).join(', ')})`,
          Number.isNaN(of((x) => x.databaseCpuMicrosPerEvent))
            ? ''
            : `${(of((x) => x.databaseCpuMicrosPerEvent) / 1000).toFixed(2)} ms`,
          of((x) => x.statementsPerEvent).toFixed(2),
          handed.every((h) => h === undefined)
            ? 'no hand-off'
            : `${(100 * median(handed.map((h) => h ?? 0))).toFixed(0)} %`,
        ]);
      }
    }
  } finally {
    receivers.stop();
  }
  writeSection(
    'webhooks-live',
    [
      '## Webhook delivery while events are made',
      '',
      `${RESELLERS} resellers' credit adjusted in loops pausing ${PAUSE_MS} ms, ${EVENTS} \`credit.changed\` events in all, two operator-wide endpoints taking every event (receivers in a process of their own answering 204): a rate the worker keeps up with. From the first adjustment until every delivery is recorded: this process's CPU (the module, its worker, the loops), the local MariaDB's, and the statements the module sends through knex, per event (each event: its adjustment's transaction, its dispatch and two deliveries); medians of ${ROUNDS} alternating rounds, each on a fresh database (every round's CPU in brackets). "Handed over": deliveries the dispatch claimed for its own worker and gave it from memory, without a claim round. ${machine()}.`,
      '',
      table(
        [
          'database',
          'module',
          'events/s',
          'CPU per event',
          'MariaDB CPU per event',
          'statements per event',
          'handed over',
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
