/**
 * Sync at scale: `npm run bench:sync`.
 *
 * `reseller-admin sync --concurrency 50` over 10,000 and 100,000 domains held at the sandbox
 * registrar, which answers each call after 20 ms (SANDBOX_LATENCY_MS). The ideal is
 * concurrency / latency = 2,500 domains/s; peak memory of the CLI process (sampled every 50 ms)
 * must not grow with the number of domains. One domain in ten has a new expiry date at the
 * registrar, so the sync writes as well as reads. The command runs in a child process of its own
 * (bench/support/sync-child.ts), timed from start to exit (start-up included).
 *
 * Environment: BENCH_ENGINES (sqlite; mariadb too if asked), BENCH_SYNC_SIZES (10000,100000),
 * BENCH_SYNC_LATENCY_MS (20), BENCH_SYNC_CONCURRENCY (50).
 */
import { fork } from 'node:child_process';
import path from 'node:path';
import { ulid } from 'ulid';
import { createResellerModule } from '../src/module';
import { enginesFromEnv, freshDatabase, type Engine } from './support/databases';
import { ROOT } from '../test/support/server-process';
import { writeSection } from './support/results';
import { machine, mib, positiveInt, table } from './support/stats';
import { givenGroupSellingCom } from '../test/support/domains';

const SIZES = (process.env.BENCH_SYNC_SIZES ?? '10000,100000').split(',').map(Number);
const LATENCY_MS = positiveInt('BENCH_SYNC_LATENCY_MS', 20);
const CONCURRENCY = positiveInt('BENCH_SYNC_CONCURRENCY', 50);
const MASTER_KEY = Buffer.alloc(32, 5).toString('base64');
const BATCH = 500;

interface ChildReport {
  code: number;
  seconds: number;
  cpuSeconds: number;
  peakRss: number;
  peakHeap: number;
  peakLive: number;
  maxRss: number;
  stdoutBytes: number;
  stderr: string;
  tail: string;
}
interface Row {
  engine: Engine;
  domains: number;
  report: ChildReport;
}

/** The platform's domains and the sandbox registry's entries, written in bulk. */
async function seed(url: string, count: number): Promise<void> {
  const module = await createResellerModule({ database: url, settings: { masterKey: MASTER_KEY, logLevel: 'silent' } });
  try {
    await module.migrate();
    await givenGroupSellingCom(module, 'bench');
    const { reseller } = await module.services.resellers.create('sync@example.com', 'bench', 0);
    const now = Date.now();
    for (let start = 0; start < count; start += BATCH) {
      const domains: Array<Record<string, unknown>> = [];
      const registry: Array<Record<string, unknown>> = [];
      for (let i = start; i < Math.min(count, start + BATCH); i++) {
        const name = `sync-${String(i).padStart(7, '0')}.com`;
        // One in ten renewed at the registrar since the platform last looked: sync records the new date.
        const platformExpiry = i % 10 === 0 ? '2029-06-01' : '2030-06-01';
        domains.push({
          id: ulid(),
          name,
          unicode_name: name,
          tld: '.com',
          reseller_id: reseller.id,
          registrar: 'sandbox',
          status: 'Active',
          expiry_date: platformExpiry,
          nameservers: '["ns1.sandbox.test","ns2.sandbox.test"]',
          transfer_lock: null,
          dns_management: false,
          email_forwarding: false,
          id_protection: false,
          created_at: now,
          updated_at: now,
        });
        registry.push({
          plugin_id: 'sandbox',
          state_key: `domain:${name}`,
          updated_at: now,
          value: JSON.stringify({
            status: 'active',
            expiryDate: '2030-06-01',
            nameservers: ['ns1.sandbox.test', 'ns2.sandbox.test'],
            locked: true,
            idProtection: false,
            dnsRecords: [],
            contacts: {},
            forwards: [],
            eppCode: 'bench',
            hosts: {},
            nextRecordId: 1,
          }),
        });
      }
      await module.knex.transaction(async (trx) => {
        await trx('domains').insert(domains);
        await trx('plugin_state').insert(registry);
      });
    }
  } finally {
    await module.close();
  }
}

const signed = (n: number) => `${n >= 0 ? '+' : ''}${n.toFixed(0)}`;

function runSync(url: string): Promise<ChildReport> {
  const child = fork(path.join(ROOT, 'bench/support/sync-child.ts'), [], {
    cwd: ROOT,
    execArgv: [
      '--expose-gc',
      ...(process.env.BENCH_SYNC_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_SYNC_PROFILE}`] : []),
      '--import',
      'tsx',
    ],
    env: {
      ...process.env,
      DATABASE_URL: url,
      MASTER_KEY,
      LOG_LEVEL: 'warn',
      SANDBOX_LATENCY_MS: String(LATENCY_MS),
      SYNC_CONCURRENCY: String(CONCURRENCY),
    },
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  });
  return new Promise((resolve, reject) => {
    child.once('message', (report) => resolve(report as ChildReport));
    child.once('exit', (code) => reject(new Error(`sync child exited with ${code} before reporting`)));
  });
}

async function main(): Promise<void> {
  const rows: Row[] = [];
  for (const engine of enginesFromEnv(['sqlite'])) {
    for (const count of SIZES) {
      const db = await freshDatabase(engine, `sync_${count}`);
      try {
        process.stderr.write(`sync ${engine}: seeding ${count} domains\n`);
        await seed(db.url, count);
        process.stderr.write(`sync ${engine}: syncing ${count} domains\n`);
        const report = await runSync(db.url);
        if (report.code !== 0)
          throw new Error(`sync of ${count} domains on ${engine} exited ${report.code}: ${report.stderr}`);
        if (!report.stderr.includes(`${count}/${count} domains`) || report.stderr.includes('failed'))
          throw new Error(`sync of ${count} on ${engine} did not sync every domain: ${report.stderr}`);
        rows.push({ engine, domains: count, report });
      } finally {
        await db.drop();
      }
    }
  }
  const ideal = (CONCURRENCY * 1000) / LATENCY_MS;
  const smallest = new Map<Engine, Row>();
  for (const r of rows) if (!smallest.has(r.engine)) smallest.set(r.engine, r);
  writeSection(
    'sync',
    [
      '## 4. Sync at scale: `reseller-admin sync`',
      '',
      `\`reseller-admin sync --concurrency ${CONCURRENCY}\` in a process of its own, the sandbox answering each call after ${LATENCY_MS} ms; one domain in ten gets a new expiry date. Time from start to exit (start-up included); memory sampled every 50 ms, the live heap after a full collection once a second. Ideal: ${CONCURRENCY} / ${LATENCY_MS} ms = ${ideal.toFixed(0)} domains/s. ${machine()}.`,
      '',
      table(
        [
          'database',
          'domains',
          'time',
          'domains/s',
          'of the ideal',
          'CPU per domain',
          'peak RSS',
          'peak live heap',
          'peak heap used',
          'report on stdout',
        ],
        rows.map((r) => {
          const rate = r.domains / r.report.seconds;
          const base = smallest.get(r.engine)!;
          const growth = (pick: (c: ChildReport) => number) =>
            r === base
              ? ''
              : ` (${signed((pick(r.report) / pick(base.report) - 1) * 100)}% vs ${base.domains.toLocaleString('en')})`;
          return [
            r.engine,
            r.domains.toLocaleString('en'),
            `${r.report.seconds.toFixed(1)} s`,
            rate.toFixed(0),
            `**${((rate / ideal) * 100).toFixed(0)}%**`,
            `${((r.report.cpuSeconds / r.domains) * 1e6).toFixed(0)} µs`,
            `**${mib(r.report.peakRss)}**${growth((c) => c.peakRss)}`,
            `**${mib(r.report.peakLive)}**${growth((c) => c.peakLive)}`,
            mib(r.report.peakHeap),
            `${(r.report.stdoutBytes / 1024).toFixed(0)} KiB`,
          ];
        }),
      ),
    ].join('\n'),
  );
}

main().catch((error) => {
  console.error(error);
  process.exitCode = 1;
});
