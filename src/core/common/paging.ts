import { DomainError } from './errors';

/**
 * One page of a list read with keyset paging: the rows after a cursor, never an OFFSET, so a
 * page costs the same deep in a long list as at its start and rows added meanwhile neither
 * repeat nor vanish. `next` is the cursor of the following page, null on the last one.
 */
export interface Page<T> {
  readonly items: readonly T[];
  readonly next: string | null;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 200;

/** The page size a caller asked for, within 1 to `MAX_PAGE_SIZE` (the default when left out). */
export function pageSize(limit: number | undefined): number {
  if (limit === undefined) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_PAGE_SIZE)
    throw new DomainError('validation_failed', `limit must be a whole number from 1 to ${MAX_PAGE_SIZE}`);
  return limit;
}

type KeyPart = string | number;

/**
 * A cursor is the sort key of the last row of a page, tagged with the list it came from, as
 * base64url JSON: opaque to clients (docs/api.md#lists), checked when it comes back, so a cursor
 * from another list or a hand-made one is a 400 rather than a query on whatever it says.
 */
export function encodeCursor(list: string, key: readonly KeyPart[]): string {
  return Buffer.from(JSON.stringify([list, ...key]), 'utf8').toString('base64url');
}

export function decodeCursor<K extends readonly KeyPart[]>(
  list: string,
  cursor: string,
  shape: { readonly [I in keyof K]: K[I] extends number ? 'number' : 'string' },
): K {
  const refused = () =>
    new DomainError('validation_failed', 'cursor is not one this list gave; start again without it');
  if (cursor.length > 1024 || !/^[A-Za-z0-9_-]+$/.test(cursor)) throw refused();
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
  } catch {
    throw refused();
  }
  if (!Array.isArray(parsed) || parsed[0] !== list || parsed.length !== shape.length + 1) throw refused();
  const key = parsed.slice(1);
  const types = shape as readonly string[];
  for (let i = 0; i < types.length; i++) {
    const part = key[i];
    if (types[i] === 'number' ? !Number.isSafeInteger(part) : typeof part !== 'string' || part.length > 300)
      throw refused();
  }
  return key as unknown as K;
}

/** A row of a list kept newest first by creation time, then id (orders, statement lines). */
interface Created {
  readonly createdAt: Date;
  readonly id: string;
}

/** The cursor of a list kept newest first by creation time, then id: the key of the page's last row. */
export const encodeCreatedCursor = (list: string, last: Created): string =>
  encodeCursor(list, [last.createdAt.getTime(), last.id]);

export function decodeCreatedCursor(list: string, cursor: string): { createdAt: number; id: string } {
  const [createdAt, id] = decodeCursor<[number, string]>(list, cursor, ['number', 'string']);
  return { createdAt, id };
}

/**
 * Cuts what a repository answered for `limit + 1` rows into a page: the extra row only says that
 * another page exists, and the last row kept makes its cursor.
 */
export function toPage<T>(rows: readonly T[], limit: number, cursorOf: (last: T) => string): Page<T> {
  if (rows.length <= limit) return { items: rows, next: null };
  const items = rows.slice(0, limit);
  return { items, next: cursorOf(items[items.length - 1]!) };
}
