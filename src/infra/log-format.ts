/** How log lines are written: `json` (one object a line, for collectors) or `pretty` (for people at a terminal). */
export type LogFormat = 'json' | 'pretty';

/** Where pino writes: anything with `write`. */
export interface LineSink {
  write(line: string): unknown;
}

const LEVELS: Readonly<Record<number, string>> = {
  10: 'TRACE',
  20: 'DEBUG',
  30: 'INFO',
  40: 'WARN',
  50: 'ERROR',
  60: 'FATAL',
};
const COLOURS: Readonly<Record<number, string>> = { 10: '90', 20: '36', 30: '32', 40: '33', 50: '31', 60: '35' };
/** Fields every line has, shown in the line's head or not at all. */
const HEAD = new Set(['time', 'level', 'msg', 'service', 'pid', 'hostname', 'err']);

/**
 * One JSON line as pino wrote it (already redacted), for a person: the time of day (UTC), the
 * level, the message, then the other fields as `key=value`, and an error's stack on the lines
 * below. A line that is not JSON is passed on as it is.
 */
export function prettyLine(line: string, colour = false): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return line;
  }
  if (entry === null || typeof entry !== 'object') return line;
  const level = typeof entry.level === 'number' ? entry.level : 30;
  const name = (LEVELS[level] ?? String(entry.level)).padEnd(5);
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString().slice(11, 23) : '';
  const fields = Object.keys(entry)
    .filter((key) => !HEAD.has(key))
    .map((key) => `${key}=${shown(entry[key])}`);
  let text = `${time} ${colour ? `\u001b[${COLOURS[level] ?? '0'}m${name}\u001b[0m` : name} ${shown(entry.msg ?? '', false)}`;
  if (fields.length > 0) text += `  ${fields.join(' ')}`;
  const err = entry.err as { stack?: unknown; message?: unknown } | undefined;
  if (err && typeof err === 'object') {
    const detail = typeof err.stack === 'string' ? err.stack : String(err.message ?? JSON.stringify(err));
    text += `\n${detail.replace(/^/gm, '    ')}`;
  }
  return `${text}\n`;
}

/** A value as it reads in a line: plain when it is one word, quoted JSON otherwise. */
function shown(value: unknown, quoted = true): string {
  if (typeof value === 'string') return !quoted || /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value);
  if (value === undefined) return '';
  return JSON.stringify(value);
}

/** A sink that writes each line to `out` in the readable format. */
export function prettySink(out: LineSink, colour: boolean): LineSink {
  return { write: (line: string) => out.write(prettyLine(line, colour)) };
}
