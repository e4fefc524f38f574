import os from 'node:os';

/** Small helpers the benchmarks share for numbers and Markdown. */

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

export const median = (values: readonly number[]) => percentile(values, 50);

export const ms = (value: number) => `${value.toFixed(value < 10 ? 2 : 1)} ms`;
export const perSecond = (value: number) => value.toFixed(0);
export const ratio = (value: number) => value.toFixed(2);

/**
 * A ratio against its target, in bold, with the verdict. A ratio just under the target is shown
 * with three decimals, so that "0.80 (below the 0.8 target)" never appears.
 */
export function verdict(value: number, target: number): string {
  const met = value >= target;
  const shown = !met && ratio(value) === ratio(target) ? value.toFixed(3) : ratio(value);
  return `**${shown}** ${met ? `(target ≥ ${target} met)` : `(below the ${target} target)`}`;
}
export const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

export function positiveInt(name: string, fallback: number): number {
  const value = Number(process.env[name] ?? fallback);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive whole number`);
  return value;
}

/** A Markdown table from a header row and body rows. */
export function table(header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.join(' | ')} |`),
  ].join('\n');
}

export function machine(): string {
  const cpus = os.cpus();
  return `node ${process.version}, ${cpus.length} x ${cpus[0]?.model.trim() ?? 'unknown CPU'}, load average ${os.loadavg()[0]!.toFixed(1)}`;
}
