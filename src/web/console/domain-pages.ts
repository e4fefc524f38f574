import { DomainError, isDomainError } from '../../core/common/errors';
import type { DnsRecord } from '../../core/registrar/plugin';
import type { DomainRecord } from '../../core/domain/domain';
import { DOMAIN_STATUSES } from '../../core/domain/domain';
import { parseDomainName } from '../../core/domain/domain-name';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import type { DomainView } from '../../core/console/console-lists';
import type { Page } from '../../core/common/paging';
import { type EarlyRequest, readingEarly } from '../page-table';
import type { ConsoleAccess, ConsoleContext, ConsolePage, ConsolePrincipal } from './console-access';
import { allPages, filtersOf, isCsv, wholeNumberOf } from './list-support';
import { resellerIdOf } from './order-pages';

const FILTERS = ['status', 'registrar', 'reseller', 'tld', 'expiring', 'open', 'operator', 'search'] as const;

/** The domain list as the query's filters select it: a reader of its pages (reads only, from the request alone). */
async function domainList(
  request: EarlyRequest,
): Promise<(cursor?: string, limit?: number) => Promise<Page<DomainView>>> {
  const filters = filtersOf(request.query, FILTERS);
  const lists = request.resolve(TOKENS.consoleLists);
  const resellerId = await resellerIdOf(request, filters.reseller);
  const expiringWithinDays = wholeNumberOf(filters.expiring, 'expiring within');
  return (cursor, limit) =>
    lists.domains({
      status: filters.status,
      registrar: filters.registrar,
      resellerId,
      tld: filters.tld,
      expiringWithinDays,
      withOpenOrder: filters.open === '1',
      needsOperator: filters.operator === '1',
      search: filters.search,
      cursor,
      limit,
    });
}

/** The page of the domain list at the query's cursor. */
const domainPage = async (request: EarlyRequest) =>
  (await domainList(request))(field(request.query, 'cursor') || undefined);

async function domainOf(ctx: ConsoleContext): Promise<DomainRecord> {
  let name: string;
  try {
    name = parseDomainName(ctx.params.name ?? '').ascii;
  } catch {
    throw new DomainError('not_found', 'There is no such domain');
  }
  const domain = await ctx.resolve(TOKENS.unitOfWork).read.domains.findByName(name);
  if (!domain) throw new DomainError('not_found', 'There is no such domain');
  return domain;
}

export const DOMAIN_PAGES: readonly ConsolePage[] = [
  // The list's page is read from the query alone, so it may start beside the session read.
  readingEarly<ConsolePrincipal, ConsoleAccess, Page<DomainView>>({
    path: '/domains',
    access: 'viewer',
    read: (request) => (isCsv(request.query) ? undefined : domainPage(request)),
    handler: async (ctx, read) => {
      if (isCsv(ctx.query)) {
        const pages = await domainList(ctx);
        const rows = await allPages((cursor) => pages(cursor, 200));
        return ctx.csv('domains.csv', [
          ['name', 'unicode_name', 'reseller', 'status', 'expiry_date', 'registrar', 'open_order'],
          ...rows.map((d) => [
            d.name,
            d.unicodeName,
            d.resellerEmail,
            d.status,
            d.expiryDate,
            d.registrar,
            d.openOrderId,
          ]),
        ]);
      }
      const page = await (read ?? domainPage(ctx));
      const registrars = ctx.resolve(TOKENS.registrars);
      return ctx.render(
        'domains',
        {
          pageTitle: 'Domains',
          page,
          filters: filtersOf(ctx.query, FILTERS),
          statuses: DOMAIN_STATUSES,
          registrars: registrars.ids(),
        },
        { fragment: 'domains-results' },
      );
    },
  }),
  {
    method: 'get',
    path: '/domains/:name',
    access: 'viewer',
    handler: async (ctx) => {
      const domain = await domainOf(ctx);
      return ctx.render('domain', { pageTitle: domain.unicodeName, ...(await detailOf(ctx, domain)) });
    },
  },
  {
    method: 'get',
    path: '/domains/:name/dns',
    access: 'viewer',
    handler: async (ctx) => {
      const domain = await domainOf(ctx);
      // Held at the registrar: asked on this page only, read-only (the reseller edits them through the API).
      let records: readonly DnsRecord[] = [];
      let error: string | undefined;
      try {
        records = await ctx.resolve(TOKENS.domainManagementService).dnsRecords(domain.resellerId, domain.name);
      } catch (failure) {
        if (!isDomainError(failure)) throw failure;
        error = failure.message;
      }
      return ctx.render('domain-dns', { pageTitle: `DNS records of ${domain.unicodeName}`, domain, records, error });
    },
  },
  {
    method: 'post',
    path: '/domains/:name/sync',
    access: 'admin',
    handler: async (ctx) => {
      const domain = await domainOf(ctx);
      // The answer, what it changes and the audit entry are written in one transaction.
      const synced = await ctx.resolve(TOKENS.domainSyncService).syncDomain(domain, { audited: true });
      return ctx.render('domain', {
        pageTitle: domain.unicodeName,
        ...(await detailOf(ctx, synced.domain)),
        changes: synced.changes,
      });
    },
  },
];

/** What the domain page shows: our record, its reseller and orders, its history and the registrar's last sync answer. */
async function detailOf(ctx: ConsoleContext, domain: DomainRecord) {
  const read = ctx.resolve(TOKENS.unitOfWork).read;
  const [reseller, orders, history, lastAnswer] = await Promise.all([
    ctx.resolve(TOKENS.resellerService).byId(domain.resellerId),
    read.orders.page({ domain: domain.name, limit: 50 }),
    ctx.resolve(TOKENS.auditLog).find({ subject: { kind: 'domain', id: domain.name }, limit: 50 }),
    read.domains.lastSyncAnswer(domain.id),
  ]);
  return { domain, reseller, orders, history, lastAnswer };
}
