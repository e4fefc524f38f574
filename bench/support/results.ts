import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

export const RESULTS_FILE = path.resolve(__dirname, '..', 'RESULTS.md');

const start = (name: string) => `<!-- bench:${name}:start -->`;
const end = (name: string) => `<!-- bench:${name}:end -->`;

/**
 * Replaces one benchmark's generated section of bench/RESULTS.md (between its markers), leaving
 * the hand-written parts (the hot-path notes) alone. A section not in the file yet is appended.
 * Set BENCH_NO_WRITE=1 to only print.
 */
export function writeSection(name: string, markdown: string): void {
  process.stdout.write(`\n${markdown}\n`);
  if (process.env.BENCH_NO_WRITE === '1') return;
  const text = existsSync(RESULTS_FILE) ? readFileSync(RESULTS_FILE, 'utf8') : '# Benchmark results\n';
  const block = `${start(name)}\n${markdown.trim()}\n${end(name)}`;
  const from = text.indexOf(start(name));
  const to = text.indexOf(end(name));
  const next =
    from >= 0 && to > from
      ? `${text.slice(0, from)}${block}${text.slice(to + end(name).length)}`
      : `${text.trimEnd()}\n\n${block}\n`;
  writeFileSync(RESULTS_FILE, next);
}
