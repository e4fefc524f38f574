import { isDomainError } from '../../core/common/errors';
import { TOKENS } from '../../core/tokens';
import { STATUS } from '../../http/error-status';
import { nameserversOfParams } from '../../http/wire/domain-wire';
import { field } from '../web-app';
import type { PortalContext, PortalPage } from './portal-access';

/**
 * One domain of the reseller, changed through the same domain-management service and rules as
 * the API (`not_owned` for a domain that is not the reseller's, whoever holds it; 409 while an order is open).
 */
export const DOMAIN_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/domains/:domain',
    access: 'reseller',
    handler: (ctx) => domainPage(ctx),
  },
  {
    method: 'post',
    path: '/domains/:domain/nameservers',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const management = ctx.resolve(TOKENS.domainManagementService);
      const domain = await management.owned(reseller.id, ctx.params.domain ?? '');
      // The API's one reader and rule for ns1…ns5 (blanks, order, a later one without an earlier).
      const nameservers = nameserversOfParams(
        Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`ns${i}`, field(ctx.form, `ns${i}`)])),
      );
      const accepted = await management.saveNameservers(reseller.id, domain.name, nameservers);
      await ctx.resolve(TOKENS.auditLog).record(ctx.actor, {
        action: 'reseller.domain.nameservers',
        subject: { kind: 'domain', id: domain.id },
        before: { nameservers: domain.nameservers },
        after: { nameservers, pending: accepted.pending ?? false },
      });
      return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}?notice=nameservers`);
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/lock',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const management = ctx.resolve(TOKENS.domainManagementService);
      const domain = await management.owned(reseller.id, ctx.params.domain ?? '');
      const locked = field(ctx.form, 'locked') === 'true';
      await management.saveLock(reseller.id, domain.name, locked);
      await ctx.resolve(TOKENS.auditLog).record(ctx.actor, {
        action: 'reseller.domain.lock',
        subject: { kind: 'domain', id: domain.id },
        before: { transferLock: domain.transferLock },
        after: { transferLock: locked },
      });
      return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}?notice=lock`);
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/id-protection',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const management = ctx.resolve(TOKENS.domainManagementService);
      const domain = await management.owned(reseller.id, ctx.params.domain ?? '');
      const enabled = field(ctx.form, 'enabled');
      if (enabled !== 'true' && enabled !== 'false')
        return domainPage(ctx, { error: 'Choose whether ID protection is to be on or off.' }, 400);
      try {
        // The API's rule: turning on a priced add-on the domain was not ordered with is refused with its price.
        await management.saveIdProtection(reseller.id, domain.name, enabled === 'true');
      } catch (error) {
        if (!isDomainError(error) || error.code === 'not_owned') throw error;
        return domainPage(ctx, { error: error.message }, STATUS[error.code]);
      }
      await ctx.resolve(TOKENS.auditLog).record(ctx.actor, {
        action: 'reseller.domain.id_protection',
        subject: { kind: 'domain', id: domain.id },
        before: { idProtection: domain.addons.idProtection },
        after: { idProtection: enabled === 'true' },
      });
      return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}?notice=id_protection`);
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/eppcode',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const management = ctx.resolve(TOKENS.domainManagementService);
      const domain = await management.owned(reseller.id, ctx.params.domain ?? '');
      // The EPP code hands the domain away: the password is asked again, even in a live session.
      if (!(await ctx.resolve(TOKENS.portalLogins).confirmPassword(reseller.id, field(ctx.form, 'password'))))
        return domainPage(ctx, { eppError: 'That password is not right.' }, 401);
      const eppCode = await management.eppCode(reseller.id, domain.name);
      await ctx.resolve(TOKENS.auditLog).record(ctx.actor, {
        action: 'reseller.domain.eppcode',
        subject: { kind: 'domain', id: domain.id },
      });
      return domainPage(ctx, { eppCode });
    },
  },
];

async function domainPage(ctx: PortalContext, extra: Record<string, unknown> = {}, status = 200) {
  const domain = await ctx
    .resolve(TOKENS.domainManagementService)
    .owned(ctx.principal.reseller.id, ctx.params.domain ?? '');
  const orders = await ctx
    .resolve(TOKENS.accountLists)
    .orders(ctx.principal.reseller.id, { domain: domain.name, limit: 20 });
  const notice = {
    nameservers: 'The nameservers are saved.',
    lock: 'The registrar lock is saved.',
    id_protection: 'ID protection is saved.',
  }[field(ctx.query, 'notice')];
  return ctx.render(
    'domain',
    { pageTitle: domain.unicodeName, domain, orders: orders.items, notice, ...extra },
    { status },
  );
}
