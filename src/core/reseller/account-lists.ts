import type { OrderAction } from '../catalogue/catalogue';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import type { Minor } from '../common/money';
import { decodeCreatedCursor, encodeCreatedCursor } from '../common/paging';
import { decodeCursor, encodeCursor, type Page, pageSize, toPage } from '../common/paging';
import type { UnitOfWork } from '../common/unit-of-work';
import type { LedgerEntry, LedgerRepository, StatementQuery, StatementRows } from '../credit/ledger';
import type { DomainKey, DomainRecord, DomainSort, DomainStatus } from '../domain/domain';
import { parseDomainName, parseTld } from '../domain/domain-name';
import { isoDay, wholeDays } from '../order/dates';
import type { Order, OrderStatus } from '../order/order';

/** Filters of a reseller's domain list (the API's `GET /account/domains`, the portal's domains page). */
export interface DomainFilter {
  readonly statuses?: readonly DomainStatus[];
  /** A TLD as a reseller writes it: `.com`, `com`, `.рф`. */
  readonly tld?: string;
  /** Expiring from today to this many days ahead, both included (0 is today). */
  readonly expiringWithinDays?: number;
  /** Part of the name, in any case, Unicode or ASCII. */
  readonly search?: string;
  readonly sort?: DomainSort;
  readonly limit?: number;
  readonly cursor?: string;
}

export interface OrderFilter {
  readonly statuses?: readonly OrderStatus[];
  readonly actions?: readonly OrderAction[];
  /** One domain's orders (any form of its name). */
  readonly domain?: string;
  /** Placed from this day to `to`, both included (YYYY-MM-DD, UTC). */
  readonly from?: string;
  readonly to?: string;
  readonly limit?: number;
  readonly cursor?: string;
}

export interface StatementFilter {
  /** Entries from this day to `to`, both included (YYYY-MM-DD, UTC). */
  readonly from?: string;
  readonly to?: string;
  readonly limit?: number;
  readonly cursor?: string;
}

/** A ledger entry and the balance right after it. */
export interface StatementLine extends LedgerEntry {
  readonly balance: Minor;
}

/** A page of the statement, oldest entry first, like a bank statement. */
export interface Statement extends Page<StatementLine> {
  /** The balance before the page's first entry. */
  readonly openingBalance: Minor;
  /** The balance after the page's last entry (the opening balance when the page is empty). */
  readonly closingBalance: Minor;
}

export const MAX_EXPIRING_WITHIN_DAYS = 3650;
/** A ledger without `statement` (a host's own) is read this many entries back at most. */
export const FALLBACK_STATEMENT_ENTRIES = 10_000;
const DAY_MS = 86_400_000;
const MAX_SEARCH_LENGTH = 253;

/**
 * The lists of one reseller's own account: its domains, its orders and its statement. Every
 * method takes the reseller first and reads only its rows, so the API's extension lists, the
 * portal's pages and their CSV exports share one isolation rule. Another reseller's order is
 * answered exactly like one that does not exist.
 */
export class AccountLists {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async domains(resellerId: string, filter: DomainFilter = {}): Promise<Page<DomainRecord>> {
    const limit = pageSize(filter.limit);
    const sort = filter.sort ?? 'name';
    const today = isoDay(this.clock.now());
    const within = filter.expiringWithinDays;
    if (within !== undefined && (!Number.isInteger(within) || within < 0 || within > MAX_EXPIRING_WITHIN_DAYS))
      throw invalid(`expiringWithinDays must be a whole number from 0 to ${MAX_EXPIRING_WITHIN_DAYS}`);
    const rows = await this.uow.read.domains.page({
      resellerId,
      statuses: filter.statuses,
      tld: filter.tld === undefined ? undefined : parseTld(filter.tld).ascii,
      ...(within !== undefined && {
        expiresFrom: today,
        expiresBy: isoDay(new Date(this.clock.now().getTime() + within * DAY_MS)),
      }),
      search: searchText(filter.search),
      sort,
      after: filter.cursor === undefined ? undefined : domainKey(sort, filter.cursor),
      limit: limit + 1,
    });
    return toPage(rows, limit, (last) =>
      sort === 'name'
        ? encodeCursor('domains:name', [last.name])
        : encodeCursor('domains:expiry', [last.expiryDate ?? '', last.name]),
    );
  }

  async orders(resellerId: string, filter: OrderFilter = {}): Promise<Page<Order>> {
    const limit = pageSize(filter.limit);
    const range = dayRange(filter.from, filter.to);
    const rows = await this.uow.read.orders.page({
      resellerId,
      statuses: filter.statuses,
      actions: filter.actions,
      domain: filter.domain === undefined ? undefined : parseDomainName(filter.domain).ascii,
      placedFrom: range.from,
      placedBefore: range.before,
      before: filter.cursor === undefined ? undefined : decodeCreatedCursor('orders', filter.cursor),
      limit: limit + 1,
    });
    return toPage(rows, limit, (last) => encodeCreatedCursor('orders', last));
  }

  /** One of the reseller's orders; `not_found` for an order of another reseller, as for one that does not exist. */
  async order(resellerId: string, orderId: string): Promise<Order> {
    const order = /^[0-9A-HJKMNP-TV-Z]{26}$/i.test(orderId)
      ? await this.uow.read.orders.findById(orderId.toUpperCase())
      : undefined;
    if (!order || order.resellerId !== resellerId) throw new DomainError('not_found', 'There is no such order');
    return order;
  }

  async statement(resellerId: string, filter: StatementFilter = {}): Promise<Statement> {
    const limit = pageSize(filter.limit);
    const range = dayRange(filter.from, filter.to);
    const query: StatementQuery = {
      resellerId,
      from: range.from,
      before: range.before,
      after: filter.cursor === undefined ? undefined : decodeCreatedCursor('statement', filter.cursor),
      limit: limit + 1,
    };
    const ledger = this.uow.read.ledger;
    const { openingBalance, entries } = ledger.statement
      ? await ledger.statement(query)
      : await statementFromEntries(ledger, query);
    let balance = openingBalance;
    const lines: StatementLine[] = entries.map((entry) => {
      balance += entry.amount;
      return { ...entry, balance };
    });
    const page = toPage(lines, limit, (last) => encodeCreatedCursor('statement', last));
    const closingBalance = page.items.length > 0 ? page.items[page.items.length - 1]!.balance : openingBalance;
    return { ...page, openingBalance, closingBalance };
  }
}

const invalid = (message: string) => new DomainError('validation_failed', message);

function searchText(search: string | undefined): string | undefined {
  const text = search?.trim().toLowerCase();
  if (!text) return undefined;
  if (text.length > MAX_SEARCH_LENGTH) throw invalid(`search must be at most ${MAX_SEARCH_LENGTH} characters`);
  return text;
}

function domainKey(sort: DomainSort, cursor: string): DomainKey {
  if (sort === 'name') {
    const [name] = decodeCursor<[string]>('domains:name', cursor, ['string']);
    return { sort, name };
  }
  const [expiry, name] = decodeCursor<[string, string]>('domains:expiry', cursor, ['string', 'string']);
  return { sort, expiryDate: expiry === '' ? null : expiry, name };
}

/** `from` and `to` as whole UTC days (`wholeDays`), the API refusing a `to` before `from`. */
function dayRange(from: string | undefined, to: string | undefined): { from?: Date; before?: Date } {
  const range = wholeDays(from, to);
  if (from !== undefined && to !== undefined && to < from) throw invalid('to must not be before from');
  return range;
}

/** A statement from a ledger without `statement`: its newest entries, walked back from today's balance. */
async function statementFromEntries(ledger: LedgerRepository, q: StatementQuery): Promise<StatementRows> {
  const [newestFirst, balance] = await Promise.all([
    ledger.entries(q.resellerId, FALLBACK_STATEMENT_ENTRIES),
    ledger.balance(q.resellerId),
  ]);
  const sortKey = (e: LedgerEntry) => [e.createdAt.getTime(), e.id] as const;
  const later = (a: readonly [number, string], b: readonly [number, string]) =>
    a[0] > b[0] || (a[0] === b[0] && a[1] > b[1]);
  const ordered = [...newestFirst].sort((a, b) => (later(sortKey(a), sortKey(b)) ? 1 : -1));
  const isAtOrAfterStart = (e: LedgerEntry) =>
    q.after
      ? later(sortKey(e), [q.after.createdAt, q.after.id])
      : q.from === undefined || e.createdAt.getTime() >= q.from.getTime();
  const fromStart = ordered.filter(isAtOrAfterStart);
  const openingBalance = balance - fromStart.reduce((sum, e) => sum + e.amount, 0);
  const entries = fromStart
    .filter((e) => q.before === undefined || e.createdAt.getTime() < q.before.getTime())
    .slice(0, q.limit);
  return { openingBalance, entries };
}
