import { DomainError } from '../../core/common/errors';
import type { Page } from '../../core/common/paging';
import type { Fields } from '../page-table';
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
