import type { ApiLogEntry } from '../api-log/api-log';
import { ORDER_ACTIONS, type OrderAction } from '../catalogue/catalogue';
import type { OrderQuery, OrderStatus } from '../order/order';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import type { Minor } from '../common/money';
import { decodeCreatedCursor, encodeCreatedCursor } from '../common/paging';
import { decodeCursor, encodeCursor, type Page, pageSize, toPage } from '../common/paging';
import { DOMAIN_STATUSES, type DomainStatus } from '../domain/domain';
import { parseTld } from '../domain/domain-name';
import { isoDay, wholeDays } from '../order/dates';
import type { ResellerStatus } from '../reseller/reseller';

/** A reseller as the console's list shows it: with its group's name and its balance. */
export interface ResellerView {
  readonly id: string;
  readonly email: string;
  readonly groupId: string;
  readonly groupName: string;
  readonly status: ResellerStatus;
  readonly balance: Minor;
  readonly createdAt: Date;
}

/** A domain across resellers: who holds it and whether an order is open on it. */
export interface DomainView {
  readonly id: string;
  readonly name: string;
  readonly unicodeName: string;
  readonly tld: string;
  readonly resellerId: string;
  readonly resellerEmail: string;
  readonly registrar: string;
  readonly status: DomainStatus;
  readonly expiryDate: string | null;
  readonly openOrderId: string | null;
  readonly openOrderNote: string | null;
}

/** An order across resellers, with the reseller's email. */
export interface OrderView {
  readonly id: string;
  readonly resellerId: string;
  readonly resellerEmail: string;
  readonly action: OrderAction;
  readonly domain: string;
  readonly registrar: string;
  readonly period: number;
  readonly price: Minor;
  readonly status: OrderStatus;
  readonly note: string | null;
  readonly createdAt: Date;
  readonly settledAt: Date | null;
}

/** The account's order query (`OrderQuery`), across resellers, and only those waiting for an operator when asked. */
export interface OrderViewQuery extends Omit<OrderQuery, 'domain'> {
  readonly needsOperator?: boolean;
}

export interface ApiLogView extends ApiLogEntry {
  readonly id: number;
  readonly resellerEmail: string;
}

export interface ResellerViewQuery {
  readonly search?: string;
  readonly groupId?: string;
  readonly status?: ResellerStatus;
  readonly minBalance?: Minor;
  readonly maxBalance?: Minor;
  readonly afterEmail?: string;
  readonly limit: number;
}

export interface DomainViewQuery {
  readonly statuses?: readonly DomainStatus[];
  readonly registrar?: string;
  readonly resellerId?: string;
  readonly tld?: string;
  readonly expiresFrom?: string;
  readonly expiresBy?: string;
  readonly withOpenOrder?: boolean;
  /** Only domains whose open order reconciliation handed to the operator. */
  readonly needsOperator?: boolean;
  readonly search?: string;
  readonly afterName?: string;
  readonly limit: number;
}

export interface ApiLogViewQuery {
  readonly resellerId?: string;
  readonly route?: string;
  readonly status?: number;
  readonly since?: Date;
  readonly until?: Date;
  readonly beforeId?: number;
  readonly limit: number;
}

/** What the dashboard counts, each in one query. */
export interface DashboardFigures {
  readonly resellers: number;
  readonly activeResellers: number;
  readonly totalCredit: Minor;
  readonly domains: number;
  readonly ordersToday: number;
  readonly ordersLast7Days: number;
  readonly pendingOrders: number;
  readonly ordersForOperator: number;
}

/** Port: the console's reads across resellers (src/infra/repositories/knex-console-views.ts). Reads only. */
export interface ConsoleViews {
  resellers(query: ResellerViewQuery): Promise<ResellerView[]>;
  domains(query: DomainViewQuery): Promise<DomainView[]>;
  apiLog(query: ApiLogViewQuery): Promise<ApiLogView[]>;
  /** Newest first. */
  orders(query: OrderViewQuery): Promise<OrderView[]>;
  dashboard(startOfToday: Date, sevenDaysAgo: Date): Promise<DashboardFigures>;
  /** Emails of these resellers (to label orders and log lines). */
  emails(resellerIds: readonly string[]): Promise<Map<string, string>>;
}

export interface ResellerListFilter {
  readonly search?: string;
  readonly groupId?: string;
  readonly status?: string;
  readonly minBalance?: Minor;
  readonly maxBalance?: Minor;
  readonly cursor?: string;
  readonly limit?: number;
}

export interface DomainListFilter {
  readonly status?: string;
  readonly registrar?: string;
  readonly resellerId?: string;
  readonly tld?: string;
  readonly expiringWithinDays?: number;
  readonly withOpenOrder?: boolean;
  readonly needsOperator?: boolean;
  readonly search?: string;
  readonly cursor?: string;
  readonly limit?: number;
}

export interface OrderListFilter {
  readonly status?: string;
  readonly action?: string;
  readonly resellerId?: string;
  readonly from?: string;
  readonly to?: string;
  readonly needsOperator?: boolean;
  readonly cursor?: string;
  readonly limit?: number;
}

export interface ApiLogListFilter {
  readonly resellerId?: string;
  readonly route?: string;
  readonly status?: number;
  readonly from?: string;
  readonly to?: string;
  readonly cursor?: string;
  readonly limit?: number;
}

const DAY_MS = 86_400_000;
const invalid = (message: string) => new DomainError('validation_failed', message);

/**
 * The operator's lists across resellers, keyset-paged (never OFFSET) with the cursors of
 * src/core/common/paging.ts. Reads only: every change goes through the services the API and the CLI use.
 */
export class ConsoleLists {
  constructor(
    private readonly views: ConsoleViews,
    private readonly clock: Clock,
  ) {}

  async resellers(filter: ResellerListFilter = {}): Promise<Page<ResellerView>> {
    const limit = pageSize(filter.limit);
    if (filter.status && filter.status !== 'active' && filter.status !== 'suspended')
      throw invalid('status must be active or suspended');
    const rows = await this.views.resellers({
      search: filter.search?.trim().toLowerCase().slice(0, 254) || undefined,
      groupId: filter.groupId || undefined,
      status: (filter.status || undefined) as ResellerStatus | undefined,
      minBalance: filter.minBalance,
      maxBalance: filter.maxBalance,
      afterEmail: filter.cursor ? decodeCursor<[string]>('console:resellers', filter.cursor, ['string'])[0] : undefined,
      limit: limit + 1,
    });
    return toPage(rows, limit, (last) => encodeCursor('console:resellers', [last.email]));
  }

  async domains(filter: DomainListFilter = {}): Promise<Page<DomainView>> {
    const limit = pageSize(filter.limit);
    if (filter.status && !(DOMAIN_STATUSES as readonly string[]).includes(filter.status))
      throw invalid(`status must be one of ${DOMAIN_STATUSES.join(', ')}`);
    const within = filter.expiringWithinDays;
    if (within !== undefined && (!Number.isInteger(within) || within < 0 || within > 3650))
      throw invalid('expiring within must be a whole number of days from 0 to 3650');
    const rows = await this.views.domains({
      statuses: filter.status ? [filter.status as DomainStatus] : undefined,
      registrar: filter.registrar || undefined,
      resellerId: filter.resellerId || undefined,
      tld: filter.tld ? parseTld(filter.tld).ascii : undefined,
      ...(within !== undefined && {
        expiresFrom: isoDay(this.clock.now()),
        expiresBy: isoDay(new Date(this.clock.now().getTime() + within * DAY_MS)),
      }),
      withOpenOrder: filter.withOpenOrder || undefined,
      needsOperator: filter.needsOperator || undefined,
      search: filter.search?.trim().toLowerCase().slice(0, 253) || undefined,
      afterName: filter.cursor ? decodeCursor<[string]>('console:domains', filter.cursor, ['string'])[0] : undefined,
      limit: limit + 1,
    });
    return toPage(rows, limit, (last) => encodeCursor('console:domains', [last.name]));
  }

  async orders(filter: OrderListFilter = {}): Promise<Page<OrderView>> {
    const limit = pageSize(filter.limit);
    if (filter.status && !ORDER_STATUSES.includes(filter.status as OrderStatus))
      throw invalid(`status must be one of ${ORDER_STATUSES.join(', ')}`);
    if (filter.action && !(ORDER_ACTIONS as readonly string[]).includes(filter.action))
      throw invalid(`action must be one of ${ORDER_ACTIONS.join(', ')}`);
    const range = dayRange(filter.from, filter.to);
    const rows = await this.views.orders({
      statuses: filter.status ? [filter.status as OrderStatus] : undefined,
      actions: filter.action ? [filter.action as OrderAction] : undefined,
      resellerId: filter.resellerId || undefined,
      placedFrom: range.from,
      placedBefore: range.before,
      needsOperator: filter.needsOperator || undefined,
      before: filter.cursor ? decodeCreatedCursor('console:orders', filter.cursor) : undefined,
      limit: limit + 1,
    });
    return toPage(rows, limit, (last) => encodeCreatedCursor('console:orders', last));
  }

  async apiLog(filter: ApiLogListFilter = {}): Promise<Page<ApiLogView>> {
    const limit = pageSize(filter.limit);
    const range = dayRange(filter.from, filter.to);
    const rows = await this.views.apiLog({
      resellerId: filter.resellerId || undefined,
      route: filter.route?.trim() || undefined,
      status: filter.status,
      since: range.from,
      until: range.before,
      beforeId: filter.cursor ? decodeCursor<[number]>('console:api-log', filter.cursor, ['number'])[0] : undefined,
      limit: limit + 1,
    });
    return toPage(rows, limit, (last) => encodeCursor('console:api-log', [last.id]));
  }

  dashboard(): Promise<DashboardFigures> {
    const now = this.clock.now();
    const startOfToday = new Date(`${isoDay(now)}T00:00:00Z`);
    return this.views.dashboard(startOfToday, new Date(now.getTime() - 7 * DAY_MS));
  }

  emails(resellerIds: readonly string[]): Promise<Map<string, string>> {
    return this.views.emails([...new Set(resellerIds)]);
  }
}

const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'completed', 'failed'];

/** The console's filter forms send an empty `from` or `to` for a day left open. */
const dayRange = (from: string | undefined, to: string | undefined) => wholeDays(from || undefined, to || undefined);
