import { DomainError, isDomainError } from '../../core/common/errors';
import { formatAmount, parseAmount } from '../../core/common/money';
import type { ResellerView } from '../../core/console/console-lists';
import type { Reseller } from '../../core/reseller/reseller';
import type { StatementLine } from '../../core/reseller/account-lists';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import type { ConsoleContext, ConsolePage } from './console-access';
import { type CsvExport, filtersOf, listOrCsv } from './list-support';

const FILTERS = ['search', 'group', 'status', 'min', 'max'] as const;

async function resellerOf(ctx: ConsoleContext): Promise<Reseller> {
  const id = ctx.params.id ?? '';
  const reseller = /^[0-9A-Z]{26}$/i.test(id)
    ? await ctx.resolve(TOKENS.resellerService).byId(id.toUpperCase())
    : undefined;
  if (!reseller) throw new DomainError('not_found', 'There is no such reseller');
  return reseller;
}

const amountOrUndefined = (text: string, what: string) => (text ? parseAmount(text, what) : undefined);

export const RESELLER_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/resellers',
    access: 'viewer',
    handler: async (ctx) => {
      const filters = filtersOf(ctx.query, FILTERS);
      const groups = await ctx.resolve(TOKENS.resellerService).listGroups();
      const groupId = filters.group ? (groups.find((g) => g.name === filters.group)?.id ?? '-') : undefined;
      const lists = ctx.resolve(TOKENS.consoleLists);
      const read = (cursor?: string, limit?: number) =>
        lists.resellers({
          search: filters.search,
          groupId,
          status: filters.status,
          minBalance: amountOrUndefined(filters.min ?? '', 'min balance'),
          maxBalance: amountOrUndefined(filters.max ?? '', 'max balance'),
          cursor,
          limit,
        });
      const csv: CsvExport<ResellerView> = {
        filename: 'resellers.csv',
        header: ['email', 'group', 'status', 'balance', 'created_at'],
        row: (r) => [r.email, r.groupName, r.status, formatAmount(r.balance), r.createdAt],
      };
      return listOrCsv(ctx, read, csv, (page) =>
        ctx.render('resellers', { pageTitle: 'Resellers', page, filters, groups }, { fragment: 'resellers-results' }),
      );
    },
  },
  {
    method: 'get',
    path: '/resellers/new',
    access: 'admin',
    handler: async (ctx) =>
      ctx.render('reseller-new', {
        pageTitle: 'New reseller',
        groups: await ctx.resolve(TOKENS.resellerService).listGroups(),
        values: {},
      }),
  },
  {
    method: 'post',
    path: '/resellers',
    access: 'admin',
    handler: async (ctx) => {
      const values = {
        email: field(ctx.form, 'email'),
        group: field(ctx.form, 'group'),
        credit: field(ctx.form, 'credit'),
      };
      const resellers = ctx.resolve(TOKENS.resellerService);
      try {
        const opening = values.credit ? parseAmount(values.credit, 'opening credit') : 0;
        const { reseller, apiKey } = await resellers.create(values.email, values.group, opening);
        return ctx.render('reseller-key', { pageTitle: 'Reseller created', reseller, apiKey, created: true });
      } catch (error) {
        if (isDomainError(error))
          return ctx.render(
            'reseller-new',
            { pageTitle: 'New reseller', groups: await resellers.listGroups(), values, error: error.message },
            { status: 400 },
          );
        throw error;
      }
    },
  },
  {
    method: 'get',
    path: '/resellers/:id',
    access: 'viewer',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      const resellers = ctx.resolve(TOKENS.resellerService);
      const [groups, balance, allowedNetworks, domains, orders, apiLog] = await Promise.all([
        resellers.listGroups(),
        ctx.resolve(TOKENS.creditService).balance(reseller.id),
        // By id: a stored email that today's rules refuse (an import, an older version) still shows its page.
        resellers.allowedNetworksOf(reseller.id),
        ctx.resolve(TOKENS.consoleLists).domains({ resellerId: reseller.id, limit: 20 }),
        ctx.resolve(TOKENS.accountLists).orders(reseller.id, { limit: 20 }),
        ctx.resolve(TOKENS.consoleLists).apiLog({ resellerId: reseller.id, limit: 20 }),
      ]);
      return ctx.render('reseller', {
        pageTitle: reseller.email,
        reseller,
        group: groups.find((g) => g.id === reseller.groupId),
        groups,
        balance,
        allowedNetworks,
        domains,
        orders,
        apiLog,
        notice: NOTICES[field(ctx.query, 'notice')],
      });
    },
  },
  {
    method: 'get',
    path: '/resellers/:id/statement',
    access: 'viewer',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      const filters = filtersOf(ctx.query, ['from', 'to']);
      const lists = ctx.resolve(TOKENS.accountLists);
      const read = (cursor?: string, limit?: number) => lists.statement(reseller.id, { ...filters, cursor, limit });
      const csv: CsvExport<StatementLine> = {
        filename: `statement-${reseller.email}.csv`,
        header: ['date', 'kind', 'amount', 'balance', 'order_id', 'note'],
        row: (e) => [e.createdAt, e.kind, formatAmount(e.amount), formatAmount(e.balance), e.orderId, e.note],
      };
      return listOrCsv(ctx, read, csv, (statement) =>
        ctx.render('statement', { pageTitle: `Statement of ${reseller.email}`, reseller, statement, filters }),
      );
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/credit',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      const reason = field(ctx.form, 'reason').trim();
      if (!reason)
        throw new DomainError('validation_failed', 'Give the reason for the change: it is kept in the ledger');
      const amount = parseAmount(field(ctx.form, 'amount'), 'amount');
      await ctx.resolve(TOKENS.creditService).adjust(reseller.id, amount, reason);
      return ctx.redirect(`/resellers/${reseller.id}?notice=credit`);
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/status',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      const status = field(ctx.form, 'status');
      if (status !== 'active' && status !== 'suspended')
        throw new DomainError('validation_failed', 'status must be active or suspended');
      await ctx.resolve(TOKENS.resellerService).setStatus(reseller.email, status);
      // A suspended reseller's portal sessions end at once.
      if (status === 'suspended') await ctx.resolve(WEB_TOKENS.sessions).endAllOf('reseller', reseller.id);
      return ctx.redirect(`/resellers/${reseller.id}?notice=${status}`);
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/group',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      await ctx.resolve(TOKENS.resellerService).changeGroup(reseller.email, field(ctx.form, 'group'));
      return ctx.redirect(`/resellers/${reseller.id}?notice=group`);
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/email',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      await ctx.resolve(TOKENS.resellerService).changeEmail(reseller.email, field(ctx.form, 'email'));
      return ctx.redirect(`/resellers/${reseller.id}?notice=email`);
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/rotate-key',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      const apiKey = await ctx.resolve(TOKENS.resellerService).rotateKey(reseller.email);
      return ctx.render('reseller-key', { pageTitle: 'New API key', reseller, apiKey, created: false });
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/invite',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      if (!ctx.resolve(WEB_TOKENS.settings).portal)
        throw new DomainError(
          'conflict',
          'The reseller portal is turned off (PORTAL=false): there is nothing to invite to',
        );
      // Audited in the invitation's own transaction; earlier links stop working.
      const invitation = await ctx.resolve(TOKENS.portalLogins).invite(ctx.actor, reseller.email);
      return ctx.render('reseller-invitation', {
        pageTitle: 'Portal invitation',
        reseller,
        link: portalUrl(ctx, `/invitation?token=${invitation.token}`),
        expiresAt: invitation.expiresAt,
      });
    },
  },
  {
    method: 'post',
    path: '/resellers/:id/networks',
    access: 'admin',
    handler: async (ctx) => {
      const reseller = await resellerOf(ctx);
      const cidr = field(ctx.form, 'cidr');
      const remove = field(ctx.form, 'remove') === '1';
      const resellers = ctx.resolve(TOKENS.resellerService);
      if (remove) await resellers.disallowNetwork(reseller.email, cidr);
      else await resellers.allowNetwork(reseller.email, cidr);
      return ctx.redirect(`/resellers/${reseller.id}?notice=networks`);
    },
  },
];

/** Where a one-time link of the portal opens: PUBLIC_URL when set, else the address this console was opened at. */
function portalUrl(ctx: ConsoleContext, path: string): string {
  const settings = ctx.resolve(WEB_TOKENS.settings);
  const mount = settings.portalPath === '/' ? '' : settings.portalPath;
  return `${settings.publicUrl ?? ctx.origin}${mount}${path}`;
}

const NOTICES: Record<string, string> = {
  credit: 'The credit is changed; the entry is in the statement.',
  suspended: 'The reseller is suspended: its API calls are refused.',
  active: 'The reseller is active again.',
  group: 'The group is changed: its prices apply from the next order.',
  email: 'The email is changed. It is also the API username: the reseller must use it in its billing module.',
  networks: 'The IP allow-list is changed.',
};
