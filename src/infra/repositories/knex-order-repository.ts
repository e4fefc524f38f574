import type { Knex } from 'knex';
import type { Db } from '../db/db';
import { transitionForOrderText } from './knex-domain-repository';
import { rowInsert, StatementTexts } from '../db/statement-text';
import type { OrderAction } from '../../core/catalogue/catalogue';
import type { DomainOrderChange, DomainStatus } from '../../core/domain/domain';
import type {
  Order,
  OrderListFilter,
  OrderQuery,
  OrderRepository,
  OrderStatus,
  PriorDomain,
} from '../../core/order/order';
import { insertUnlessPresent } from './insert-unless-present';

interface OrderRow {
  id: string;
  reseller_id: string;
  action: string;
  domain_id: string;
  domain_name: string;
  registrar: string;
  period: number | string;
  price_minor: number | string;
  status: string;
  open_domain: string | null;
  prior_domain: string | null;
  request: string | null;
  original_vars: string | null;
  idempotency_key: string | null;
  expiry_date: string | null;
  note: string | null;
  lease_owner: string | null;
  lease_until: number | string | null;
  reconcile_attempts: number | string;
  created_at: number | string;
  updated_at: number | string;
  settled_at: number | string | null;
}

const toDate = (ms: number | string | null): Date | null => (ms === null ? null : new Date(Number(ms)));

const toOrder = (row: OrderRow): Order => ({
  id: row.id,
  resellerId: row.reseller_id,
  action: row.action as OrderAction,
  domainId: row.domain_id,
  domain: row.domain_name,
  registrar: row.registrar,
  period: Number(row.period),
  price: Number(row.price_minor),
  status: row.status as OrderStatus,
  priorDomain: row.prior_domain ? (JSON.parse(row.prior_domain) as PriorDomain) : null,
  request: row.request ? JSON.parse(row.request) : { addons: [] },
  originalVars: row.original_vars,
  idempotencyKey: row.idempotency_key,
  expiryDate: row.expiry_date,
  note: row.note,
  leaseOwner: row.lease_owner,
  leaseUntil: toDate(row.lease_until),
  reconcileAttempts: Number(row.reconcile_attempts),
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at)),
  settledAt: toDate(row.settled_at),
});

const NOTE_LENGTH = 1024;

/** The columns of an order row, every one set on insert. */
const orderRow = (o: Order) => ({
  id: o.id,
  reseller_id: o.resellerId,
  action: o.action,
  domain_id: o.domainId,
  domain_name: o.domain,
  registrar: o.registrar,
  period: o.period,
  price_minor: o.price,
  status: o.status,
  open_domain: o.status === 'pending' ? o.domain : null,
  prior_domain: o.priorDomain ? JSON.stringify(o.priorDomain) : null,
  request: JSON.stringify(o.request),
  original_vars: o.originalVars,
  idempotency_key: o.idempotencyKey,
  expiry_date: o.expiryDate,
  note: o.note?.slice(0, NOTE_LENGTH) ?? null,
  lease_owner: o.leaseOwner,
  lease_until: o.leaseUntil?.getTime() ?? null,
  reconcile_attempts: o.reconcileAttempts,
  created_at: o.createdAt.getTime(),
  updated_at: o.updatedAt.getTime(),
  settled_at: o.settledAt?.getTime() ?? null,
});

/** An order's insert, its text built by knex once per dialect (src/infra/db/statement-text.ts). */
const INSERT_ORDER = rowInsert<keyof ReturnType<typeof orderRow>>('orders');

/** What a settlement sets on the order: out of pending, off the open-order index and the lease. */
function settledColumns(
  to: unknown,
  withExpiry: boolean,
  expiryDate: unknown,
  note: unknown,
  at: unknown,
): Record<string, unknown> {
  return {
    status: to,
    open_domain: null,
    ...(withExpiry && { expiry_date: expiryDate }),
    note,
    lease_owner: null,
    lease_until: null,
    settled_at: at,
    updated_at: at,
  };
}

type SettleValue = 'id' | 'to' | 'expiryDate' | 'note' | 'at';
const SETTLE = new StatementTexts<SettleValue>((db, value, shape) =>
  db('orders')
    .where({ id: value('id'), status: 'pending' })
    .update(settledColumns(value('to'), shape === 'expiry', value('expiryDate'), value('note'), value('at'))),
);

/** `settleQuery`'s statement as text (for sending with another in one round trip). */
function settleText(
  db: Db,
  id: string,
  to: Exclude<OrderStatus, 'pending'>,
  change: { expiryDate?: string | null; note: string; at: Date },
) {
  return SETTLE.text(db, change.expiryDate !== undefined ? 'expiry' : 'plain', {
    id,
    to,
    expiryDate: change.expiryDate,
    note: change.note.slice(0, NOTE_LENGTH),
    at: change.at.getTime(),
  });
}

export class KnexOrderRepository implements OrderRepository {
  constructor(private readonly db: Db) {}

  async insert(o: Order): Promise<boolean> {
    // The unique open_domain index: false when this domain already has an open order.
    const { sql, bindings } = INSERT_ORDER.text(this.db, 'row', orderRow(o));
    return insertUnlessPresent(this.db.raw(sql, bindings as Knex.RawBinding[]));
  }

  async findById(id: string): Promise<Order | undefined> {
    const row = await this.db<OrderRow>('orders').where({ id }).first();
    return row && toOrder(row);
  }

  async findOpen(domain: string): Promise<Order | undefined> {
    const row = await this.db<OrderRow>('orders').where({ open_domain: domain }).first();
    return row && toOrder(row);
  }

  async list(filter: OrderListFilter): Promise<Order[]> {
    const query = this.db<OrderRow>('orders')
      .orderBy('id', 'desc')
      .limit(filter.limit ?? 1000);
    if (filter.resellerId) query.where({ reseller_id: filter.resellerId });
    if (filter.status) query.where({ status: filter.status });
    if (filter.domain) query.where({ domain_name: filter.domain });
    return (await query).map(toOrder);
  }

  async page(q: OrderQuery): Promise<Order[]> {
    // Newest first along the (reseller_id, created_at) index; the id breaks ties within a millisecond.
    const query = this.db<OrderRow>('orders')
      .orderBy([
        { column: 'created_at', order: 'desc' },
        { column: 'id', order: 'desc' },
      ])
      .limit(q.limit);
    if (q.resellerId !== undefined) query.where({ reseller_id: q.resellerId });
    if (q.statuses && q.statuses.length > 0) query.whereIn('status', [...q.statuses]);
    if (q.actions && q.actions.length > 0) query.whereIn('action', [...q.actions]);
    if (q.domain !== undefined) query.where({ domain_name: q.domain });
    if (q.placedFrom) query.where('created_at', '>=', q.placedFrom.getTime());
    if (q.placedBefore) query.where('created_at', '<', q.placedBefore.getTime());
    const before = q.before;
    if (before)
      query.where((w) =>
        w
          .where('created_at', '<', before.createdAt)
          .orWhere((x) => x.where('created_at', '=', before.createdAt).where('id', '<', before.id)),
      );
    return (await query).map(toOrder);
  }

  async settle(
    id: string,
    to: Exclude<OrderStatus, 'pending'>,
    change: { expiryDate?: string | null; note: string; at: Date },
  ): Promise<boolean> {
    return (await this.settleQuery(id, to, change)) === 1;
  }

  async settleWithDomain(
    settlement: {
      id: string;
      to: Exclude<OrderStatus, 'pending'>;
      change: { expiryDate?: string | null; note: string; at: Date };
    },
    domain: { id: string; from: readonly DomainStatus[]; change: DomainOrderChange; resellerId?: string },
  ): Promise<{ settled: boolean; domainMoved: boolean } | undefined> {
    if (!this.db.multipleStatements) return undefined;
    const settle = settleText(this.db, settlement.id, settlement.to, settlement.change);
    const move = transitionForOrderText(this.db, domain.id, domain.from, domain.change, domain.resellerId);
    const [[settled, moved]] = (await this.db.raw(`${settle.sql};\n${move.sql}`, [
      ...settle.bindings,
      ...move.bindings,
    ] as Knex.RawBinding[])) as [[{ affectedRows: number }, { affectedRows: number }]];
    return { settled: settled.affectedRows === 1, domainMoved: moved.affectedRows === 1 };
  }

  private settleQuery(
    id: string,
    to: Exclude<OrderStatus, 'pending'>,
    change: { expiryDate?: string | null; note: string; at: Date },
  ): Knex.QueryBuilder<object, number> {
    return this.db('orders')
      .where({ id, status: 'pending' })
      .update(
        settledColumns(
          to,
          change.expiryDate !== undefined,
          change.expiryDate,
          change.note.slice(0, NOTE_LENGTH),
          change.at.getTime(),
        ),
      );
  }

  async notePending(
    id: string,
    change: { note: string; at: Date; isReconcileAttempt: boolean; leaseUntil?: Date },
  ): Promise<void> {
    await this.db('orders')
      .where({ id, status: 'pending' })
      .update({
        note: change.note.slice(0, NOTE_LENGTH),
        ...(change.isReconcileAttempt && { reconcile_attempts: this.db.raw('reconcile_attempts + 1') }),
        ...(change.leaseUntil && { lease_until: change.leaseUntil.getTime() }),
        updated_at: change.at.getTime(),
      });
  }

  async listClaimable(now: Date, limit: number): Promise<Order[]> {
    const rows = await this.db<OrderRow>('orders')
      .where({ status: 'pending' })
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<=', now.getTime()))
      .orderBy('created_at')
      .limit(limit);
    return rows.map(toOrder);
  }

  async claim(id: string, owner: string, now: Date, until: Date): Promise<boolean> {
    const moved = await this.db('orders')
      .where({ id, status: 'pending' })
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<=', now.getTime()))
      .update({ lease_owner: owner, lease_until: until.getTime(), updated_at: now.getTime() });
    return moved === 1;
  }
}
