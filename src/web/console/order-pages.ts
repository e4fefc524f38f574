import { DomainError } from '../../core/common/errors';
import { formatAmount } from '../../core/common/money';
import type { Order } from '../../core/order/order';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import type { ConsoleContext, ConsolePage } from './console-access';
import type { OrderView } from '../../core/console/console-lists';
import { type CsvExport, filtersOf, listOrCsv } from './list-support';

const FILTERS = ['status', 'action', 'reseller', 'from', 'to', 'operator'] as const;

/** A reseller named by email in a filter, as its id (an unknown email matches nothing). */
export async function resellerIdOf(
  ctx: Pick<ConsoleContext, 'resolve'>,
  email: string | undefined,
): Promise<string | undefined> {
  if (!email) return undefined;
  try {
    return (await ctx.resolve(TOKENS.resellerService).byEmail(email)).id;
  } catch {
    return 'none';
  }
}

async function orderOf(ctx: ConsoleContext): Promise<Order> {
  const id = ctx.params.id ?? '';
  const order = /^[0-9A-Z]{26}$/i.test(id) ? await ctx.resolve(TOKENS.orderService).get(id.toUpperCase()) : undefined;
  if (!order) throw new DomainError('not_found', 'There is no such order');
  return order;
}

const ORDERS_CSV: CsvExport<OrderView> = {
  filename: 'orders.csv',
  header: [
    'id',
    'placed_at',
    'reseller',
    'action',
    'domain',
    'period',
    'price',
    'status',
    'registrar',
    'note',
    'settled_at',
  ],
  row: (o) => [
    o.id,
    o.createdAt,
    o.resellerEmail,
    o.action,
    o.domain,
    o.period,
    formatAmount(o.price),
    o.status,
    o.registrar,
    o.note,
    o.settledAt,
  ],
};

export const ORDER_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/orders',
    access: 'viewer',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, FILTERS);
      const lists = ctx.resolve(TOKENS.consoleLists);
      const resellerId = await resellerIdOf(ctx, filters.reseller);
      const read = (cursor?: string, limit?: number) =>
        lists.orders({ ...filters, resellerId, needsOperator: filters.operator === '1', cursor, limit });
      return listOrCsv(ctx, read, ORDERS_CSV, (page) =>
        ctx.render('orders', { pageTitle: 'Orders', page, filters }, { fragment: 'orders-results' }),
      );
    },
  },
  {
    method: 'get',
    path: '/orders/:id',
    access: 'viewer',
    handler: async (ctx) => {
      const order = await orderOf(ctx);
      const [reseller, entries, history] = await Promise.all([
        ctx.resolve(TOKENS.resellerService).byId(order.resellerId),
        ctx.resolve(TOKENS.creditService).entries(order.resellerId, 1000),
        ctx.resolve(TOKENS.auditLog).find({ subject: { kind: 'order', id: order.id }, limit: 50 }),
      ]);
      return ctx.render('order', {
        pageTitle: `Order ${order.id}`,
        order,
        reseller,
        entries: entries.filter((e) => e.orderId === order.id).reverse(),
        history,
        notice: field(ctx.query, 'notice') === 'settled' ? 'The order is settled.' : undefined,
      });
    },
  },
  {
    method: 'post',
    path: '/orders/:id/settle',
    access: 'admin',
    handler: async (ctx) => {
      const order = await orderOf(ctx);
      const outcome = field(ctx.form, 'outcome');
      if (outcome !== 'complete' && outcome !== 'refund')
        throw new DomainError('validation_failed', 'Choose complete or refund');
      const note = field(ctx.form, 'note').trim();
      if (!note) throw new DomainError('validation_failed', 'Give a note: what the registrar said, a ticket number');
      const expiry = field(ctx.form, 'expiry').trim();
      if (outcome === 'refund' && expiry)
        throw new DomainError('validation_failed', 'An expiry date goes with complete only');
      // The same settlement path as `reseller-admin order settle` (refused when the order is already settled).
      // Audited in the settlement's own transaction.
      await ctx.resolve(TOKENS.orderService).settleByOperator(order.id, {
        outcome,
        note,
        ...(expiry && { expiryDate: expiry }),
      });
      return ctx.redirect(`/orders/${order.id}?notice=settled`);
    },
  },
];
