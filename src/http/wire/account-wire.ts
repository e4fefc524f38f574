/**
 * Wire formats of the account lists (docs/api.md#account-lists): the reseller's own domains,
 * orders and statement, an extension beyond the contract.
 */
import { z } from 'zod';
import { ORDER_ACTIONS } from '../../core/catalogue/catalogue';
import { formatAmount } from '../../core/common/money';
import { MAX_PAGE_SIZE } from '../../core/common/paging';
import { DOMAIN_STATUSES, type DomainRecord } from '../../core/domain/domain';
import { parseDomainName } from '../../core/domain/domain-name';
import type { Order, OrderStatus } from '../../core/order/order';
import type { Statement, StatementLine } from '../../core/reseller/account-lists';
import { Decimal } from './reply-schemas';
import { optionalText, text } from './schemas';

const ORDER_STATUSES = ['pending', 'completed', 'failed'] as const satisfies readonly OrderStatus[];

/**
 * A filter naming one or several values: repeated (`status=Active&status=Expired`), `status[]=`,
 * comma-separated (`status=Active,Expired`) or a JSON array; each in any case.
 */
const choices = <const T extends string>(field: string, allowed: readonly T[]) =>
  z
    .union([z.string(), z.array(z.string()), z.record(z.string(), z.string())], {
      error: `${field} must be one or more of: ${allowed.join(', ')}`,
    })
    .transform((value, ctx): T[] => {
      const given = typeof value === 'string' ? [value] : Array.isArray(value) ? value : Object.values(value);
      const out: T[] = [];
      for (const part of given.flatMap((v) => v.split(',')).map((v) => v.trim())) {
        if (part === '') continue;
        const found = allowed.find((a) => a.toLowerCase() === part.toLowerCase());
        if (!found) {
          ctx.addIssue({
            code: 'custom',
            message: `${field} "${part.slice(0, 40)}" is not one of: ${allowed.join(', ')}`,
          });
          return z.NEVER;
        }
        if (!out.includes(found)) out.push(found);
      }
      return out;
    })
    .meta({ description: `One or more of: ${allowed.join(', ')} (repeated or comma-separated)` });

const wholeNumber = (field: string, max: number) =>
  text(field)
    .trim()
    .regex(/^\d{1,5}$/, `${field} must be a whole number`)
    .transform(Number)
    .refine((n) => n <= max, `${field} must be at most ${max}`)
    .meta({ description: `A whole number up to ${max}` });

const day = (field: string, description: string) =>
  optionalText(field).meta({ description: `${description} (YYYY-MM-DD, UTC, included)`, examples: ['2026-11-01'] });

const paging = {
  limit: wholeNumber('limit', MAX_PAGE_SIZE)
    .optional()
    .meta({ description: `Rows per page, 1 to ${MAX_PAGE_SIZE}; default 50` }),
  cursor: optionalText('cursor').meta({
    description: "The previous page's `next`: continues the list after it (keyset paging)",
  }),
};

/** `GET /account/domains`. */
export const DomainListQuery = z.object({
  status: choices('status', DOMAIN_STATUSES).optional(),
  tld: optionalText('tld').meta({ description: 'One TLD, like .com' }),
  expiringWithinDays: wholeNumber('expiringWithinDays', 3650)
    .optional()
    .meta({ description: 'Only domains whose expiry date is from today to this many days ahead' }),
  search: optionalText('search').meta({ description: 'Part of the name, Unicode or ASCII, any case' }),
  sort: z
    .enum(['name', 'expiry'], { error: 'sort must be name or expiry' })
    .optional()
    .meta({ description: 'name (default), or expiry: soonest first, unknown expiry last' }),
  ...paging,
});

/** `GET /account/orders`. */
export const OrderListQuery = z.object({
  status: choices('status', ORDER_STATUSES).optional(),
  action: choices('action', ORDER_ACTIONS).optional(),
  domain: optionalText('domain').meta({ description: "Only this domain's orders" }),
  from: day('from', 'Placed on or after this day'),
  to: day('to', 'Placed on or before this day'),
  ...paging,
});

/** `GET /account/orders/{id}`. */
export const OrderIdPath = z.object({
  id: text('id').meta({ description: 'The order id (26 characters)' }),
});

/** `GET /account/statement`. */
export const StatementQuery = z.object({
  from: day('from', 'Entries on or after this day'),
  to: day('to', 'Entries on or before this day'),
  ...paging,
});

const IsoDate = z.string().regex(/^\d{4}-\d{2}-\d{2}$/);
const IsoDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/)
  .meta({ description: 'ISO 8601 date-time in UTC, with milliseconds' });
const Next = z.string().optional().meta({ description: 'The cursor of the next page; left out on the last page' });

export const DomainListItem = z.strictObject({
  domain: z.string().meta({ description: 'The name in Unicode' }),
  punycode: z.string().meta({ description: 'The name in ASCII (punycode); the same as domain for an ASCII name' }),
  tld: z.string(),
  status: z.enum(DOMAIN_STATUSES),
  expiryDate: IsoDate.optional(),
  nameservers: z.array(z.string()),
  transferLock: z.boolean().optional().meta({ description: 'Left out while unknown' }),
  addons: z.strictObject({ dnsmanagement: z.boolean(), emailforwarding: z.boolean(), idprotection: z.boolean() }),
  createdAt: IsoDateTime,
});
export const DomainList = z
  .strictObject({ domains: z.array(DomainListItem), next: Next })
  .meta({ description: "A page of the reseller's domains" });

export const OrderItem = z.strictObject({
  id: z.string(),
  action: z.enum(ORDER_ACTIONS),
  domain: z.string().meta({ description: 'The name in Unicode' }),
  period: z.number().int(),
  amount: Decimal.meta({ description: 'The price taken from the balance when the order was placed' }),
  status: z.enum(ORDER_STATUSES),
  refunded: Decimal.optional().meta({ description: 'A failed order is refunded in full: the amount given back' }),
  expiryDate: IsoDate.optional().meta({ description: 'The expiry the order produced, once completed' }),
  placedAt: IsoDateTime,
  settledAt: IsoDateTime.optional(),
});
export const OrderList = z
  .strictObject({ orders: z.array(OrderItem), next: Next })
  .meta({ description: "A page of the reseller's orders, newest first" });

export const StatementEntryItem = z.strictObject({
  id: z.string(),
  at: IsoDateTime,
  kind: z.enum(['top_up', 'adjustment', 'order_debit', 'order_refund']),
  amount: Decimal.meta({ description: 'Positive credits the balance, negative debits it' }),
  balance: Decimal.meta({ description: 'The balance right after this entry' }),
  orderId: z.string().optional(),
  description: z.string().optional(),
});
export const StatementReply = z
  .strictObject({
    currency: z.string().regex(/^[A-Z]{3}$/),
    openingBalance: Decimal.meta({ description: "The balance before this page's first entry" }),
    closingBalance: Decimal.meta({ description: "The balance after this page's last entry" }),
    entries: z.array(StatementEntryItem),
    next: Next,
  })
  .meta({ description: 'A page of the statement, oldest entry first' });

const iso = (at: Date) => at.toISOString();

const unicodeOf = (ascii: string): string => {
  try {
    return parseDomainName(ascii).unicode;
  } catch {
    return ascii;
  }
};

export function toDomainListItem(d: DomainRecord): z.infer<typeof DomainListItem> {
  return {
    domain: d.unicodeName,
    punycode: d.name,
    tld: d.tld,
    status: d.status,
    ...(d.expiryDate ? { expiryDate: d.expiryDate } : {}),
    nameservers: [...d.nameservers],
    ...(d.transferLock === null ? {} : { transferLock: d.transferLock }),
    addons: {
      dnsmanagement: d.addons.dnsManagement,
      emailforwarding: d.addons.emailForwarding,
      idprotection: d.addons.idProtection,
    },
    createdAt: iso(d.createdAt),
  };
}

export function toOrderItem(o: Order): z.infer<typeof OrderItem> {
  return {
    id: o.id,
    action: o.action,
    domain: unicodeOf(o.domain),
    period: o.period,
    amount: formatAmount(o.price),
    status: o.status,
    // docs/orders.md: an order fails only with its reservation refunded in full.
    ...(o.status === 'failed' ? { refunded: formatAmount(o.price) } : {}),
    ...(o.status === 'completed' && o.expiryDate ? { expiryDate: o.expiryDate } : {}),
    placedAt: iso(o.createdAt),
    ...(o.settledAt ? { settledAt: iso(o.settledAt) } : {}),
  };
}

export function toStatementEntry(line: StatementLine): z.infer<typeof StatementEntryItem> {
  return {
    id: line.id,
    at: iso(line.createdAt),
    kind: line.kind,
    amount: formatAmount(line.amount),
    balance: formatAmount(line.balance),
    ...(line.orderId ? { orderId: line.orderId } : {}),
    ...(line.note ? { description: line.note } : {}),
  };
}

export function toStatementReply(statement: Statement, currency: string): z.infer<typeof StatementReply> {
  return {
    currency,
    openingBalance: formatAmount(statement.openingBalance),
    closingBalance: formatAmount(statement.closingBalance),
    entries: statement.items.map(toStatementEntry),
    ...(statement.next ? { next: statement.next } : {}),
  };
}
