import { DomainError } from '../../core/common/errors';
import type { Page } from '../../core/common/paging';
import type { Fields, PageContext, PageResult } from '../page-table';
import { field } from '../web-app';

/** Rows a CSV export holds at most (a list longer than this is exported in filtered parts). */
export const CSV_MAX_ROWS = 50_000;

/** Every page of a list, for a CSV export of what the filters select. */
export async function allPages<T>(read: (cursor: string | undefined) => Promise<Page<T>>): Promise<T[]> {
  const rows: T[] = [];
  let cursor: string | undefined;
  do {
    const page = await read(cursor);
    rows.push(...page.items);
    cursor = page.next ?? undefined;
  } while (cursor && rows.length < CSV_MAX_ROWS);
  return rows.slice(0, CSV_MAX_ROWS);
}

/** A CSV export: its file name, its header row, and the cells of each row. */
export interface CsvExport<T> {
  readonly filename: string;
  readonly header: readonly string[];
  readonly row: (row: T) => readonly unknown[];
}

/**
 * A filtered list's answer: with `?format=csv`, every row the filters select (up to
 * `CSV_MAX_ROWS`) as a CSV file; otherwise the page at the query's cursor, for `show` to render.
 * `read` is the list's one query, so the export and the page never disagree.
 */
export async function listOrCsv<P extends Page<unknown>>(
  ctx: Pick<PageContext<unknown>, 'query' | 'csv'>,
  read: (cursor?: string, limit?: number) => Promise<P>,
  csv: CsvExport<P['items'][number]>,
  show: (page: P) => PageResult,
): Promise<PageResult> {
  if (!isCsv(ctx.query)) return show(await read(field(ctx.query, 'cursor') || undefined));
  const rows = await allPages((cursor) => read(cursor, 200));
  return ctx.csv(csv.filename, [csv.header, ...rows.map(csv.row)]);
}

/** The filters of a list as they came in the query (kept in the pager's and the CSV link's query). */
export function filtersOf(query: Fields, names: readonly string[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const name of names) {
    const value = field(query, name).trim();
    if (value) out[name] = value.slice(0, 300);
  }
  return out;
}

/** A whole number from a filter field, undefined when empty. */
export function wholeNumberOf(value: string | undefined, what: string): number | undefined {
  if (value === undefined || value === '') return undefined;
  if (!/^\d{1,6}$/.test(value)) throw new DomainError('validation_failed', `${what} must be a whole number`);
  return Number(value);
}

export const isCsv = (query: Fields) => field(query, 'format') === 'csv';
