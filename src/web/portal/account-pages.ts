import { DomainError } from '../../core/common/errors';
import { formatAmount, parseAmount } from '../../core/common/money';
import { DOMAIN_STATUSES } from '../../core/domain/domain';
import type { PremiumRule } from '../../core/catalogue/premium';
import { TOKENS } from '../../core/tokens';
import type { DomainRecord } from '../../core/domain/domain';
import type { Order } from '../../core/order/order';
import type { StatementLine } from '../../core/reseller/account-lists';
import { type CsvExport, filtersOf, isCsv, listOrCsv, wholeNumberOf } from '../console/list-support';
import { field } from '../web-app';
import type { PortalPage } from './portal-access';

const ORDER_STATUSES = ['pending', 'completed', 'failed'] as const;
const ORDER_ACTIONS = ['register', 'renew', 'transfer'] as const;

const DOMAINS_CSV: CsvExport<DomainRecord> = {
  filename: 'domains.csv',
  header: ['domain', 'punycode', 'status', 'expiry_date', 'nameservers', 'transfer_lock'],
  row: (d) => [
    d.unicodeName,
    d.name,
    d.status,
    d.expiryDate ?? '',
    d.nameservers.join(' '),
    d.transferLock === null ? '' : String(d.transferLock),
  ],
};

const ORDERS_CSV: CsvExport<Order> = {
  filename: 'orders.csv',
  header: ['id', 'placed_at', 'action', 'domain', 'period', 'amount', 'status', 'refunded', 'settled_at'],
  row: (o) => [
    o.id,
    o.createdAt.toISOString(),
    o.action,
    o.domain,
    o.period,
    formatAmount(o.price),
    o.status,
    o.status === 'failed' ? formatAmount(o.price) : '',
    o.settledAt?.toISOString() ?? '',
  ],
};

const STATEMENT_CSV: CsvExport<StatementLine> = {
  filename: 'statement.csv',
  header: ['date', 'kind', 'amount', 'balance', 'order', 'description'],
  row: (e) => [
    e.createdAt.toISOString(),
    e.kind,
    formatAmount(e.amount),
    formatAmount(e.balance),
    e.orderId ?? '',
    e.note ?? '',
  ],
};

/** The reseller's own money and lists: dashboard, domains, orders, statement, pricing. Every read is of its own rows. */
export const ACCOUNT_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/',
    access: 'reseller',
    handler: async (ctx) => {
      const id = ctx.principal.reseller.id;
      const lists = ctx.resolve(TOKENS.accountLists);
      const [balance, lowCredit, expiring, recent] = await Promise.all([
        ctx.resolve(TOKENS.creditService).balance(id),
        ctx.resolve(TOKENS.resellerService).lowCredit(id),
        lists.domains(id, { expiringWithinDays: 30, sort: 'expiry', limit: 20 }),
        lists.orders(id, { limit: 10 }),
      ]);
      return ctx.render('dashboard', {
        pageTitle: 'Dashboard',
        balance,
        lowCredit,
        expiring: expiring.items,
        moreExpiring: expiring.next !== null,
        recent: recent.items,
        notice: field(ctx.query, 'notice') === 'threshold' ? 'The low-balance threshold is saved.' : undefined,
      });
    },
  },
  {
    method: 'post',
    path: '/low-credit',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const text = field(ctx.form, 'threshold').trim();
      const threshold = text === '' ? 0 : parseAmount(text, 'the threshold');
      await ctx.resolve(TOKENS.resellerService).setLowCreditThreshold(reseller.id, threshold);
      return ctx.redirect('/?notice=threshold');
    },
  },
  {
    method: 'get',
    path: '/domains',
    access: 'reseller',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, ['status', 'tld', 'expiring', 'search', 'sort']);
      const read = (cursor?: string, limit?: number) =>
        ctx.resolve(TOKENS.accountLists).domains(ctx.principal.reseller.id, {
          statuses: filters.status ? [DOMAIN_STATUSES.find((s) => s === filters.status) ?? unknownStatus()] : undefined,
          tld: filters.tld,
          expiringWithinDays: wholeNumberOf(filters.expiring, 'expiring within'),
          search: filters.search,
          sort: filters.sort === 'expiry' ? 'expiry' : 'name',
          cursor,
          limit,
        });
      return listOrCsv(ctx, read, DOMAINS_CSV, (page) =>
        ctx.render(
          'domains',
          { pageTitle: 'Domains', page, filters, statuses: DOMAIN_STATUSES, hx: true },
          { fragment: 'domains-results' },
        ),
      );
    },
  },
  {
    method: 'get',
    path: '/orders',
    access: 'reseller',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, ['status', 'action', 'domain', 'from', 'to']);
      const read = (cursor?: string, limit?: number) =>
        ctx.resolve(TOKENS.accountLists).orders(ctx.principal.reseller.id, {
          statuses: filters.status ? [ORDER_STATUSES.find((s) => s === filters.status) ?? unknownStatus()] : undefined,
          actions: filters.action ? [ORDER_ACTIONS.find((a) => a === filters.action) ?? unknownStatus()] : undefined,
          domain: filters.domain,
          from: filters.from,
          to: filters.to,
          cursor,
          limit,
        });
      return listOrCsv(ctx, read, ORDERS_CSV, (page) =>
        ctx.render('orders', { pageTitle: 'Orders', page, filters, hx: true }, { fragment: 'orders-results' }),
      );
    },
  },
  {
    method: 'get',
    path: '/statement',
    access: 'reseller',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, ['from', 'to']);
      const read = (cursor?: string, limit?: number) =>
        ctx.resolve(TOKENS.accountLists).statement(ctx.principal.reseller.id, { ...filters, cursor, limit });
      return listOrCsv(ctx, read, STATEMENT_CSV, (statement) =>
        ctx.render('statement', { pageTitle: 'Statement', statement, filters }),
      );
    },
  },
  {
    method: 'get',
    path: '/pricing',
    access: 'reseller',
    handler: async (ctx) => {
      const groupId = ctx.principal.reseller.groupId;
      const catalogue = ctx.resolve(TOKENS.catalogueService);
      const [rows, addons, premium] = await Promise.all([
        catalogue.tldPricing(groupId),
        catalogue.addonPrices(groupId),
        catalogue.premiumRule(groupId),
      ]);
      if (isCsv(ctx.query))
        return ctx.csv('pricing.csv', [
          ['tld', 'years', 'register', 'renew', 'transfer', 'currency'],
          ...rows.map((r) => [
            r.tld,
            r.years,
            r.registrationPrice ?? '',
            r.renewalPrice ?? '',
            r.transferPrice ?? '',
            r.currencyCode,
          ]),
        ]);
      return ctx.render('pricing', {
        pageTitle: 'Pricing',
        rows,
        addons: [...addons].map(([name, price]) => ({ name, price })),
        premium: premiumSentence(premium),
      });
    },
  },
];

function unknownStatus(): never {
  throw new DomainError('validation_failed', 'That filter value is not one of the choices');
}

/** The group's premium rule in one sentence a reseller reads (docs/orders.md#premium-names has the rule). */
export function premiumSentence(rule: PremiumRule | undefined): string {
  const how = 'Search quotes the exact price, and an order must accept it (premiumEnabled and premiumCost).';
  if (!rule) return 'Premium names (those a registry prices above its normal price) are not sold to your account.';
  if (rule.kind === 'markup')
    return `Premium names cost the registry's premium price plus ${formatAmount(rule.basisPoints)} %. ${how}`;
  const bands = rule.bands.map((b) => `up to ${formatAmount(b.upTo)} costs ${formatAmount(b.price)}`).join(', ');
  return `Premium names are priced by the registry's cost: ${bands}; a dearer name is not sold. ${how}`;
}
