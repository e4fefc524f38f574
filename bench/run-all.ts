/**
 * `npm run bench`: every benchmark, one after the other, each in a process of its own, each
 * writing its section of bench/RESULTS.md. A benchmark that fails does not stop the others; the
 * run exits non-zero at the end. BENCH_ONLY=auth-reads,in-process runs a subset.
 */
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from '../test/support/server-process';
import { writeSection } from './support/results';
import { machine } from './support/stats';

// in-process: authenticated reads' server CPU without sockets (bench/in-process.ts), the steadier measure on a shared machine.
const BENCHMARKS = [
  'auth-reads',
  'in-process',
  'orders',
  'search',
  'sync',
  'console',
  'webhooks',
  'webhooks-live',
] as const;
const fileOf = (name: string) => (name === 'in-process' ? 'in-process.ts' : `${name}.bench.ts`);

const only = process.env.BENCH_ONLY?.split(',').map((s) => s.trim());
const selected = BENCHMARKS.filter((name) => !only || only.includes(name));
writeSection(
  'run',
  `Last full or partial run: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC (${selected.join(', ')}); ${machine()}.`,
);

const failed: string[] = [];
for (const name of selected) {
  process.stderr.write(`\n=== bench: ${name} ===\n`);
  const file = path.join(ROOT, 'bench', fileOf(name));
  if (!existsSync(file)) {
    process.stderr.write(`=== bench: ${name} is missing (${file}) ===\n`);
    failed.push(name);
    continue;
  }
  const started = Date.now();
  const result = spawnSync(process.execPath, ['--import', 'tsx', file], {
    cwd: ROOT,
    stdio: 'inherit',
    env: process.env,
  });
  process.stderr.write(
    `=== bench: ${name} ${result.status === 0 ? 'done' : 'FAILED'} in ${((Date.now() - started) / 1000).toFixed(0)} s ===\n`,
  );
  if (result.status !== 0) failed.push(name);
}
if (failed.length > 0) {
  process.stderr.write(`\nFailed: ${failed.join(', ')}\n`);
  process.exitCode = 1;
}
