import type { Knex } from 'knex';
import type {
  ApiLogView,
  ApiLogViewQuery,
  ConsoleViews,
  DashboardFigures,
  DomainView,
  DomainViewQuery,
  OrderView,
  OrderViewQuery,
  ResellerView,
  ResellerViewQuery,
} from '../../core/console/console-lists';
import type { OrderAction } from '../../core/catalogue/catalogue';
import type { DomainStatus } from '../../core/domain/domain';
import type { OrderStatus } from '../../core/order/order';
import { OPERATOR_NOTE } from '../../core/order/order-reconciliation';
import { apiLogEntryOf } from './knex-api-log-repository';
import type { ResellerStatus } from '../../core/reseller/reseller';

/** A LIKE pattern's text with its wildcards taken literally (escape character `!` on both engines). */
const likeEscaped = (text: string) => text.replace(/[!%_]/g, (c) => `!${c}`);

/** The console's reads across resellers: each list one keyset query, the dashboard a fixed set of counts. */
export class KnexConsoleViews implements ConsoleViews {
  constructor(private readonly db: Knex) {}

  async resellers(q: ResellerViewQuery): Promise<ResellerView[]> {
    const query = this.db('resellers as r')
      .join('reseller_groups as g', 'g.id', 'r.group_id')
      .leftJoin('credit_accounts as c', 'c.reseller_id', 'r.id')
      .select('r.id', 'r.email', 'r.group_id', 'g.name as group_name', 'r.status', 'c.balance_minor', 'r.created_at')
      .orderBy('r.email')
      .limit(q.limit);
    if (q.search) query.whereRaw(`r.email like ? escape '!'`, [`%${likeEscaped(q.search)}%`]);
    if (q.groupId) query.where('r.group_id', q.groupId);
    if (q.status) query.where('r.status', q.status);
    if (q.minBalance !== undefined) query.whereRaw('coalesce(c.balance_minor, 0) >= ?', [q.minBalance]);
    if (q.maxBalance !== undefined) query.whereRaw('coalesce(c.balance_minor, 0) <= ?', [q.maxBalance]);
    if (q.afterEmail !== undefined) query.where('r.email', '>', q.afterEmail);
    return (await query).map((row) => ({
      id: row.id,
      email: row.email,
      groupId: row.group_id,
      groupName: row.group_name,
      status: row.status as ResellerStatus,
      balance: Number(row.balance_minor ?? 0),
      createdAt: new Date(Number(row.created_at)),
    }));
  }

  async domains(q: DomainViewQuery): Promise<DomainView[]> {
    // The page of domains first, on the domains table alone (its name index gives the order and the
    // keyset), then the reseller's email and the open order of those rows only: joined first,
    // MariaDB drove the query from the resellers and sorted all their domains for every page.
    // The columns the list shows, not `d.*`: MariaDB materialises this derived table, and a TEXT
    // column (nameservers, premium costs) makes that an on-disk temporary table for every page.
    const page = this.db('domains as d')
      .select('d.id', 'd.name', 'd.unicode_name', 'd.tld', 'd.reseller_id', 'd.registrar', 'd.status', 'd.expiry_date')
      .orderBy('d.name')
      .limit(q.limit);
    if (q.statuses && q.statuses.length > 0) page.whereIn('d.status', [...q.statuses]);
    if (q.registrar) page.where('d.registrar', q.registrar);
    if (q.resellerId) page.where('d.reseller_id', q.resellerId);
    if (q.tld) page.where('d.tld', q.tld);
    if (q.expiresFrom) page.where('d.expiry_date', '>=', q.expiresFrom);
    if (q.expiresBy) page.where('d.expiry_date', '<=', q.expiresBy);
    // The open order is found through orders.open_domain (unique: at most one per name).
    if (q.withOpenOrder || q.needsOperator)
      page.whereExists((sub) => {
        sub.select(this.db.raw('1')).from('orders as oo').whereRaw('oo.open_domain = d.name');
        if (q.needsOperator) sub.whereRaw(`oo.note like ? escape '!'`, [`%${likeEscaped(OPERATOR_NOTE)}%`]);
      });
    if (q.search) {
      const pattern = `%${likeEscaped(q.search)}%`;
      page.where((w) =>
        w.whereRaw(`d.name like ? escape '!'`, [pattern]).orWhereRaw(`d.unicode_name like ? escape '!'`, [pattern]),
      );
    }
    if (q.afterName !== undefined) page.where('d.name', '>', q.afterName);
    const query = this.db
      .from(page.as('d'))
      .join('resellers as r', 'r.id', 'd.reseller_id')
      .leftJoin('orders as o', 'o.open_domain', 'd.name')
      .select(
        'd.id',
        'd.name',
        'd.unicode_name',
        'd.tld',
        'd.reseller_id',
        'r.email as reseller_email',
        'd.registrar',
        'd.status',
        'd.expiry_date',
        'o.id as open_order_id',
        'o.note as open_order_note',
      )
      .orderBy('d.name');
    return (await query).map((row) => ({
      id: row.id,
      name: row.name,
      unicodeName: row.unicode_name,
      tld: row.tld,
      resellerId: row.reseller_id,
      resellerEmail: row.reseller_email,
      registrar: row.registrar,
      status: row.status as DomainStatus,
      expiryDate: row.expiry_date,
      openOrderId: row.open_order_id ?? null,
      openOrderNote: row.open_order_note ?? null,
    }));
  }

  async orders(q: OrderViewQuery): Promise<OrderView[]> {
    const query = this.db('orders as o')
      .join('resellers as r', 'r.id', 'o.reseller_id')
      .select(
        'o.id',
        'o.reseller_id',
        'r.email as reseller_email',
        'o.action',
        'o.domain_name',
        'o.registrar',
        'o.period',
        'o.price_minor',
        'o.status',
        'o.note',
        'o.created_at',
        'o.settled_at',
      )
      .orderBy([
        { column: 'o.created_at', order: 'desc' },
        { column: 'o.id', order: 'desc' },
      ])
      .limit(q.limit);
    if (q.statuses && q.statuses.length > 0) query.whereIn('o.status', [...q.statuses]);
    if (q.actions && q.actions.length > 0) query.whereIn('o.action', [...q.actions]);
    if (q.resellerId) query.where('o.reseller_id', q.resellerId);
    if (q.placedFrom) query.where('o.created_at', '>=', q.placedFrom.getTime());
    if (q.placedBefore) query.where('o.created_at', '<', q.placedBefore.getTime());
    if (q.needsOperator)
      query.where('o.status', 'pending').whereRaw(`o.note like ? escape '!'`, [`%${likeEscaped(OPERATOR_NOTE)}%`]);
    const before = q.before;
    if (before)
      query.where((w) =>
        w
          .where('o.created_at', '<', before.createdAt)
          .orWhere((x) => x.where('o.created_at', '=', before.createdAt).where('o.id', '<', before.id)),
      );
    return (await query).map((row) => ({
      id: row.id,
      resellerId: row.reseller_id,
      resellerEmail: row.reseller_email,
      action: row.action as OrderAction,
      domain: row.domain_name,
      registrar: row.registrar,
      period: Number(row.period),
      price: Number(row.price_minor),
      status: row.status as OrderStatus,
      note: row.note,
      createdAt: new Date(Number(row.created_at)),
      settledAt: row.settled_at === null ? null : new Date(Number(row.settled_at)),
    }));
  }

  async apiLog(q: ApiLogViewQuery): Promise<ApiLogView[]> {
    const query = this.db('api_log as l')
      .leftJoin('resellers as r', 'r.id', 'l.reseller_id')
      .select('l.*', 'r.email as reseller_email')
      .orderBy('l.id', 'desc')
      .limit(q.limit);
    if (q.resellerId) query.where('l.reseller_id', q.resellerId);
    if (q.route) query.whereRaw(`l.route like ? escape '!'`, [`%${likeEscaped(q.route)}%`]);
    if (q.status !== undefined) query.where('l.status', q.status);
    if (q.since) query.where('l.at', '>=', q.since.getTime());
    if (q.until) query.where('l.at', '<', q.until.getTime());
    if (q.beforeId !== undefined) query.where('l.id', '<', q.beforeId);
    return (await query).map((row) => ({
      id: Number(row.id),
      ...apiLogEntryOf(row),
      resellerEmail: row.reseller_email ?? row.reseller_id,
    }));
  }

  async dashboard(startOfToday: Date, sevenDaysAgo: Date): Promise<DashboardFigures> {
    const count = async (query: Knex.QueryBuilder) =>
      Number(((await query.count({ n: '*' })) as Array<{ n: number | string }>)[0]?.n ?? 0);
    const [
      resellers,
      activeResellers,
      totalCredit,
      domains,
      ordersToday,
      ordersLast7Days,
      pendingOrders,
      ordersForOperator,
    ] = await Promise.all([
      count(this.db('resellers')),
      count(this.db('resellers').where({ status: 'active' })),
      this.db('credit_accounts')
        .sum({ total: 'balance_minor' })
        .then((rows) => Number((rows as Array<{ total: number | string | null }>)[0]?.total ?? 0)),
      count(this.db('domains')),
      count(this.db('orders').where('created_at', '>=', startOfToday.getTime())),
      count(this.db('orders').where('created_at', '>=', sevenDaysAgo.getTime())),
      count(this.db('orders').where({ status: 'pending' })),
      count(
        this.db('orders')
          .where({ status: 'pending' })
          .whereRaw(`note like ? escape '!'`, [`%${likeEscaped(OPERATOR_NOTE)}%`]),
      ),
    ]);
    return {
      resellers,
      activeResellers,
      totalCredit,
      domains,
      ordersToday,
      ordersLast7Days,
      pendingOrders,
      ordersForOperator,
    };
  }

  async emails(resellerIds: readonly string[]): Promise<Map<string, string>> {
    if (resellerIds.length === 0) return new Map();
    const rows = await this.db('resellers')
      .whereIn('id', [...resellerIds])
      .select('id', 'email');
    return new Map(rows.map((r: { id: string; email: string }) => [r.id, r.email]));
  }
}
