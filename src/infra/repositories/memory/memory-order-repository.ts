import type {
  IdempotencyRecord,
  IdempotencyRepository,
  IdempotentAnswer,
  Order,
  OrderListFilter,
  OrderQuery,
  OrderRepository,
  OrderStatus,
} from '../../../core/order/order';
import {
  assertMinor,
  assertReferenced,
  assertUnique,
  byText,
  copy,
  folded,
  key,
  type TablesRef,
} from './memory-tables';

const NOTE_LENGTH = 1024;
const newestFirst = (a: Order, b: Order) => b.createdAt.getTime() - a.createdAt.getTime() || byText(b.id, a.id);
const leaseFree = (o: Order, now: Date) => o.leaseUntil === null || o.leaseUntil.getTime() <= now.getTime();

/**
 * The twin of KnexOrderRepository: `orders`, whose unique `open_domain` (the name while the order
 * is pending) lets one open order per domain exist, and its reseller key.
 */
export class MemoryOrderRepository implements OrderRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.orders;
  }

  async insert(o: Order): Promise<boolean> {
    assertUnique(this.rows.has(o.id), `orders.id ${o.id}`);
    assertReferenced(this.ref.tables.resellers.has(o.resellerId), `orders.reseller_id ${o.resellerId}`);
    assertMinor(o.price, 'orders.price_minor');
    const open = o.status === 'pending' && this.isOpen(o.domain);
    if (open) return false;
    this.rows.set(o.id, { ...copy(o), note: o.note?.slice(0, NOTE_LENGTH) ?? null });
    return true;
  }

  async findById(id: string): Promise<Order | undefined> {
    return copy(this.rows.get(id));
  }

  async findOpen(domain: string): Promise<Order | undefined> {
    return copy([...this.rows.values()].find((o) => o.status === 'pending' && o.domain === domain));
  }

  async list(filter: OrderListFilter): Promise<Order[]> {
    return copy(
      [...this.rows.values()]
        .filter(
          (o) =>
            (!filter.resellerId || o.resellerId === filter.resellerId) &&
            (!filter.status || o.status === filter.status) &&
            (!filter.domain || o.domain === filter.domain),
        )
        .sort((a, b) => byText(b.id, a.id))
        .slice(0, filter.limit ?? 1000),
    );
  }

  async page(q: OrderQuery): Promise<Order[]> {
    const before = q.before;
    return copy(
      [...this.rows.values()]
        .filter(
          (o) =>
            (q.resellerId === undefined || o.resellerId === q.resellerId) &&
            (!q.statuses || q.statuses.length === 0 || q.statuses.includes(o.status)) &&
            (!q.actions || q.actions.length === 0 || q.actions.includes(o.action)) &&
            (q.domain === undefined || o.domain === q.domain) &&
            (!q.placedFrom || o.createdAt.getTime() >= q.placedFrom.getTime()) &&
            (!q.placedBefore || o.createdAt.getTime() < q.placedBefore.getTime()) &&
            (!before ||
              o.createdAt.getTime() < before.createdAt ||
              (o.createdAt.getTime() === before.createdAt && byText(o.id, before.id) < 0)),
        )
        .sort(newestFirst)
        .slice(0, q.limit),
    );
  }

  async settle(
    id: string,
    to: Exclude<OrderStatus, 'pending'>,
    change: { expiryDate?: string | null; note: string; at: Date },
  ): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.status !== 'pending') return false;
    this.rows.set(id, {
      ...row,
      status: to,
      ...(change.expiryDate !== undefined && { expiryDate: change.expiryDate }),
      note: change.note.slice(0, NOTE_LENGTH),
      leaseOwner: null,
      leaseUntil: null,
      settledAt: new Date(change.at.getTime()),
      updatedAt: new Date(change.at.getTime()),
    });
    return true;
  }

  async notePending(
    id: string,
    change: { note: string; at: Date; isReconcileAttempt: boolean; leaseUntil?: Date },
  ): Promise<void> {
    const row = this.rows.get(id);
    if (row?.status !== 'pending') return;
    this.rows.set(id, {
      ...row,
      note: change.note.slice(0, NOTE_LENGTH),
      reconcileAttempts: row.reconcileAttempts + (change.isReconcileAttempt ? 1 : 0),
      ...(change.leaseUntil && { leaseUntil: new Date(change.leaseUntil.getTime()) }),
      updatedAt: new Date(change.at.getTime()),
    });
  }

  async listClaimable(now: Date, limit: number): Promise<Order[]> {
    return copy(
      [...this.rows.values()]
        .filter((o) => o.status === 'pending' && leaseFree(o, now))
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime())
        .slice(0, limit),
    );
  }

  async claim(id: string, owner: string, now: Date, until: Date): Promise<boolean> {
    const row = this.rows.get(id);
    if (row?.status !== 'pending' || !leaseFree(row, now)) return false;
    this.rows.set(id, {
      ...row,
      leaseOwner: owner,
      leaseUntil: new Date(until.getTime()),
      updatedAt: new Date(now.getTime()),
    });
    return true;
  }

  private isOpen(domain: string): boolean {
    return [...this.rows.values()].some((o) => o.status === 'pending' && folded(o.domain) === folded(domain));
  }
}

/** The twin of KnexIdempotencyRepository: `idempotency_keys`, keyed by (reseller, key). */
export class MemoryIdempotencyRepository implements IdempotencyRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.idempotency;
  }

  async find(resellerId: string, k: string): Promise<IdempotencyRecord | undefined> {
    return copy(this.rows.get(key(resellerId, k)));
  }

  async insert(r: IdempotencyRecord): Promise<boolean> {
    assertReferenced(this.ref.tables.resellers.has(r.resellerId), `idempotency_keys.reseller_id ${r.resellerId}`);
    // Compared exactly, as both engines compare it (a binary collation on MariaDB): keys are opaque client strings.
    if (this.rows.has(key(r.resellerId, r.key))) return false;
    this.rows.set(key(r.resellerId, r.key), copy(r));
    return true;
  }

  async deleteExpired(resellerId: string, k: string, now: Date): Promise<boolean> {
    const row = this.rows.get(key(resellerId, k));
    return row !== undefined && row.expiresAt.getTime() < now.getTime() && this.rows.delete(key(resellerId, k));
  }

  async finishForOrder(orderId: string, answer: IdempotentAnswer): Promise<void> {
    for (const [k, row] of this.rows)
      if (row.orderId === orderId && row.state === 'in_flight')
        this.rows.set(k, { ...row, state: 'done', answer: copy(answer) });
  }

  async purgeExpired(now: Date): Promise<number> {
    let purged = 0;
    for (const [k, row] of this.rows)
      if (row.expiresAt.getTime() < now.getTime() && row.state === 'done') {
        this.rows.delete(k);
        purged++;
      }
    return purged;
  }
}
