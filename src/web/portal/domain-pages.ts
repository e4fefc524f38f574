import { isDomainError } from '../../core/common/errors';
import { TOKENS } from '../../core/tokens';
import { STATUS } from '../../http/error-status';
import { nameserversOfParams } from '../../http/wire/domain-wire';
import { field } from '../web-app';
import { AUDITED, management, ownedDomain, resellerOf } from './owned-domain';
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
      const domain = await ownedDomain(ctx);
      // The API's one reader and rule for ns1…ns5 (blanks, order, a later one without an earlier).
      const nameservers = nameserversOfParams(
        Object.fromEntries([1, 2, 3, 4, 5].map((i) => [`ns${i}`, field(ctx.form, `ns${i}`)])),
      );
      await management(ctx).saveNameservers(resellerOf(ctx), domain.name, nameservers, AUDITED);
      return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}?notice=nameservers`);
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/lock',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      const locked = field(ctx.form, 'locked') === 'true';
      await management(ctx).saveLock(resellerOf(ctx), domain.name, locked, AUDITED);
      return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}?notice=lock`);
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/id-protection',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      const enabled = field(ctx.form, 'enabled');
      if (enabled !== 'true' && enabled !== 'false')
        return domainPage(ctx, { error: 'Choose whether ID protection is to be on or off.' }, 400);
      try {
        // The API's rule: turning on a priced add-on the domain was not ordered with is refused with its price.
        await management(ctx).saveIdProtection(resellerOf(ctx), domain.name, enabled === 'true', AUDITED);
      } catch (error) {
        if (!isDomainError(error) || error.code === 'not_owned') throw error;
        return domainPage(ctx, { error: error.message }, STATUS[error.code]);
      }
      return ctx.redirect(`/domains/${encodeURIComponent(domain.name)}?notice=id_protection`);
    },
  },
  {
    method: 'post',
    path: '/domains/:domain/eppcode',
    access: 'reseller',
    handler: async (ctx) => {
      const domain = await ownedDomain(ctx);
      // The EPP code hands the domain away: the password is asked again, even in a live session.
      if (!(await ctx.resolve(TOKENS.portalLogins).confirmPassword(resellerOf(ctx), field(ctx.form, 'password'))))
        return domainPage(ctx, { eppError: 'That password is not right.' }, 401);
      const eppCode = await management(ctx).eppCode(resellerOf(ctx), domain.name, AUDITED);
      return domainPage(ctx, { eppCode });
    },
  },
];

async function domainPage(ctx: PortalContext, extra: Record<string, unknown> = {}, status = 200) {
  const domain = await ownedDomain(ctx);
  const orders = await ctx.resolve(TOKENS.accountLists).orders(resellerOf(ctx), { domain: domain.name, limit: 20 });
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
