import { isDomainError } from '../../core/common/errors';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import type { PortalContext, PortalPage } from './portal-access';

/** The reseller's own sign-in settings: its password and its optional second factor. */
export const LOGIN_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/account',
    access: 'reseller',
    handler: (ctx) => accountPage(ctx),
  },
  {
    method: 'post',
    path: '/account/password',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      await ctx
        .resolve(TOKENS.portalLogins)
        .changePassword(
          ctx.actor,
          reseller.id,
          field(ctx.form, 'current'),
          field(ctx.form, 'password'),
          field(ctx.form, 'confirmation'),
        );
      // Other sessions signed in with the old password end; this one goes on under a new id.
      const sessions = ctx.resolve(WEB_TOKENS.sessions);
      await sessions.endAllOf('reseller', reseller.id);
      await ctx.signIn.start('reseller', reseller.id, 'signed_in');
      return ctx.redirect('/account?notice=password');
    },
  },
  {
    method: 'post',
    path: '/account/second-factor',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const logins = ctx.resolve(TOKENS.portalLogins);
      const sealed = field(ctx.form, 'sealed');
      if (!sealed) {
        const { sealed: fresh } = logins.newSecondFactor(reseller);
        return accountPage(ctx, { enrolling: { sealed: fresh, ...logins.describeSecondFactor(fresh, reseller) } });
      }
      try {
        const codes = await logins.enrol(ctx.actor, reseller.id, sealed, field(ctx.form, 'code'));
        return ctx.render('recovery-codes', { pageTitle: 'Recovery codes', codes });
      } catch (error) {
        if (!isDomainError(error) || error.code !== 'validation_failed') throw error;
        const enrolling = { sealed, ...logins.describeSecondFactor(sealed, reseller) };
        return accountPage(ctx, { enrolling, error: error.message }, 400);
      }
    },
  },
  {
    method: 'post',
    path: '/account/second-factor/remove',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const logins = ctx.resolve(TOKENS.portalLogins);
      if (!(await logins.confirmPassword(reseller.id, field(ctx.form, 'password'))))
        return accountPage(ctx, { error: 'That password is not right.' }, 401);
      await logins.removeSecondFactor(ctx.actor, reseller.id);
      return ctx.redirect('/account?notice=removed');
    },
  },
];

async function accountPage(ctx: PortalContext, extra: Record<string, unknown> = {}, status = 200) {
  const account = await ctx.resolve(TOKENS.portalLogins).account(ctx.principal.reseller.id);
  const notice = {
    password: 'Your password is changed; your other sessions are signed out.',
    removed: 'The second factor is off.',
  }[field(ctx.query, 'notice')];
  return ctx.render('account', { pageTitle: 'Account', account, notice, ...extra }, { status });
}
