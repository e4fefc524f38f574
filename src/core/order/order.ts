import type { OrderAction } from '../catalogue/catalogue';
import type { DomainStatus } from '../domain/domain';
import type { Minor } from '../common/money';

/**
 * An order's life (docs/orders.md): `pending` from the moment its price is reserved until the
 * registrar's outcome is known; then `completed` (the debit stands) or `failed` (refunded in full).
 * Only pending → completed and pending → failed exist, each a conditional update.
 */
export type OrderStatus = 'pending' | 'completed' | 'failed';

/** The domain row as it was before a register or transfer took it over (Cancelled, Transferred Away). */
export interface PriorDomain {
  readonly status: DomainStatus;
  readonly resellerId: string;
  readonly registrar: string;
  readonly expiryDate: string | null;
}

/** What the order asked the registrar for, kept for audit (the EPP code is never stored). */
export interface OrderRequest {
  readonly nameservers?: readonly string[];
  readonly contacts?: Readonly<Record<string, Readonly<Record<string, string>>>>;
  readonly addons: readonly string[];
  readonly fields?: Readonly<Record<string, unknown>>;
  readonly idnLanguage?: string;
}

export interface Order {
  readonly id: string;
  readonly resellerId: string;
  readonly action: OrderAction;
  readonly domainId: string;
  /** ASCII (punycode) name. */
  readonly domain: string;
  readonly registrar: string;
  readonly period: number;
  /** Reserved when placed; refunded in full when the order fails. */
  readonly price: Minor;
  readonly status: OrderStatus;
  /** Register/transfer: the domain row before the order (null when the order created it). Renew: the domain before renewal. */
  readonly priorDomain: PriorDomain | null;
  readonly request: OrderRequest;
  /** `originalvars` exactly as received (JSON text), never interpreted. */
  readonly originalVars: string | null;
  readonly idempotencyKey: string | null;
  /** The expiry the order produced (YYYY-MM-DD), once completed. */
  readonly expiryDate: string | null;
  /** The last thing learnt about the order: the registrar's refusal, a timeout, a reconciliation result. */
  readonly note: string | null;
  readonly leaseOwner: string | null;
  readonly leaseUntil: Date | null;
  readonly reconcileAttempts: number;
  readonly createdAt: Date;
  readonly updatedAt: Date;
  readonly settledAt: Date | null;
}

export interface OrderListFilter {
  readonly resellerId?: string;
  readonly status?: OrderStatus;
  readonly domain?: string;
  readonly limit?: number;
}

/** Where a list of orders, newest first, continues: the last row's creation time and id. */
export interface OrderKey {
  readonly createdAt: number;
  readonly id: string;
}

/** One page of orders, newest first (src/core/reseller/account-lists.ts makes it). */
export interface OrderQuery {
  readonly resellerId?: string;
  readonly statuses?: readonly OrderStatus[];
  readonly actions?: readonly OrderAction[];
  /** ASCII domain name. */
  readonly domain?: string;
  /** Placed at or after this instant, and before `placedBefore`. */
  readonly placedFrom?: Date;
  readonly placedBefore?: Date;
  readonly before?: OrderKey;
  readonly limit: number;
}

export interface OrderRepository {
  /**
   * Inserts a pending order. Returns false, writing nothing, when the domain already has an open
   * order (the database's unique index on the open domain decides, not a prior read).
   */
  insert(order: Order): Promise<boolean>;
  findById(id: string): Promise<Order | undefined>;
  /** The domain's open (pending) order, if it has one: there is at most one (the unique open-domain index). */
  findOpen(domain: string): Promise<Order | undefined>;
  list(filter: OrderListFilter): Promise<Order[]>;
  /** Up to `limit` orders matching the query, newest first, older than its key (keyset paging). */
  page(query: OrderQuery): Promise<Order[]>;
  /**
   * pending → completed | failed, only from pending: returns false when the order was settled
   * already (by a concurrent retry, the request path or reconciliation).
   */
  settle(
    id: string,
    to: Exclude<OrderStatus, 'pending'>,
    change: { expiryDate?: string | null; note: string; at: Date },
  ): Promise<boolean>;
  /**
   * Records what was learnt about a still-pending order without settling it: counts a
   * reconciliation attempt, and with `leaseUntil` sets when it is next looked at (the backoff).
   */
  notePending(
    id: string,
    change: { note: string; at: Date; isReconcileAttempt: boolean; leaseUntil?: Date },
  ): Promise<void>;
  /** Pending orders whose lease has run out (or never had one), oldest first. */
  listClaimable(now: Date, limit: number): Promise<Order[]>;
  /**
   * Takes the lease of a pending order whose lease has run out: one conditional update, so two
   * reconcilers (or a reconciler and the request path) never act on the same order at once.
   */
  claim(id: string, owner: string, now: Date, until: Date): Promise<boolean>;
}

export type IdempotencyState = 'in_flight' | 'done';

/** The first answer to an idempotent request: replayed to every retry with the same key and body. */
export type IdempotentAnswer =
  | { readonly ok: true }
  | { readonly ok: false; readonly code: string; readonly message: string };

export interface IdempotencyRecord {
  readonly resellerId: string;
  readonly key: string;
  readonly fingerprint: string;
  readonly state: IdempotencyState;
  readonly orderId: string | null;
  readonly answer: IdempotentAnswer | null;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

export interface IdempotencyRepository {
  find(resellerId: string, key: string): Promise<IdempotencyRecord | undefined>;
  /** Returns false, writing nothing, when the key is taken (by a live record). */
  insert(record: IdempotencyRecord): Promise<boolean>;
  /** Deletes the record only if it expired before `now`, so an old key can be used again; answers whether it did. */
  deleteExpired(resellerId: string, key: string, now: Date): Promise<boolean>;
  /** in_flight → done with the first answer; a record already done keeps its answer. */
  finishForOrder(orderId: string, answer: IdempotentAnswer): Promise<void>;
  /** Removes records that expired before `now`; returns how many. */
  purgeExpired(now: Date): Promise<number>;
}
