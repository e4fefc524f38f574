/**
 * How a command's result is printed: JSON for scripts (the default), or a table for people
 * (`reseller-admin --format table …`). Every command returns plain data and leaves the printing
 * here, so a new command gets both formats without doing anything.
 */
export const OUTPUT_FORMATS = ['json', 'table'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

export function formatOutput(value: unknown, format: OutputFormat): string {
  if (format === 'json') return `${JSON.stringify(value, null, 2)}\n`;
  return `${renderReadable(value)}\n`;
}

/**
 * A list of records is one table (a column per field, in the order first seen); a record is one
 * field per line, with its lists of records as tables under their name; anything else as JSON.
 */
export function renderReadable(value: unknown): string {
  if (Array.isArray(value)) {
    if (value.length === 0) return '(none)';
    if (value.every(isRecord)) return renderTable(value);
    return value.map(cell).join('\n');
  }
  if (!isRecord(value)) return cell(value);
  const scalars = Object.entries(value).filter(([, v]) => !(Array.isArray(v) && v.length > 0 && v.every(isRecord)));
  const width = Math.max(0, ...scalars.map(([k]) => k.length));
  const parts = [scalars.map(([k, v]) => `${k.padEnd(width)}  ${cell(v)}`).join('\n')];
  for (const [key, list] of Object.entries(value))
    if (Array.isArray(list) && list.length > 0 && list.every(isRecord)) parts.push(`\n${key}:\n${renderTable(list)}`);
  return parts.filter(Boolean).join('\n');
}

/** Rows under a header, columns padded to their widest cell. */
export function renderTable(rows: ReadonlyArray<Record<string, unknown>>): string {
  const columns: string[] = [];
  for (const row of rows) for (const key of Object.keys(row)) if (!columns.includes(key)) columns.push(key);
  const cells = rows.map((row) => columns.map((c) => cell(row[c])));
  const widths = columns.map((c, i) => Math.max(c.length, ...cells.map((r) => r[i]!.length)));
  const line = (values: readonly string[]) =>
    values
      .map((v, i) => v.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  return [line(columns), line(widths.map((w) => '-'.repeat(w))), ...cells.map(line)].join('\n');
}

function cell(value: unknown): string {
  if (value === null || value === undefined) return '-';
  if (typeof value === 'string') return value.replace(/\s+/g, ' ');
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (Array.isArray(value) && value.every((v) => typeof v !== 'object' || v === null)) return value.join(', ');
  return JSON.stringify(value);
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
