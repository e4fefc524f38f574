import { isDomainError } from '../../core/common/errors';
import { resellerActor } from '../../core/reseller/portal-logins';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import { type PortalContext, type PortalPage, portalStep } from './portal-access';

/** One message for every failure: it never says whether the email exists. */
const SIGN_IN_FAILED = 'That email and password do not match a reseller who may sign in.';
const SUSPENDED = 'This reseller account is suspended. Contact your provider.';
const CODE_FAILED = 'That code is not right. Use the 6 digits your app shows now, or one of your recovery codes.';

/** Sign-in (email, password, then the code when the reseller has a second factor), sign-out, and the invitation. */
export const SIGN_IN_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/sign-in',
    access: 'public',
    handler: async (ctx) => {
      if (ctx.session) return ctx.redirect(portalStep(ctx.session));
      return ctx.render('sign-in', { pageTitle: 'Sign in', email: '', notice: noticeOf(field(ctx.query, 'notice')) });
    },
  },
  {
    method: 'post',
    path: '/sign-in',
    access: 'public',
    handler: async (ctx) => {
      const email = field(ctx.form, 'email').trim().slice(0, 254);
      const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
      const attempt = { address: `portal:${ctx.clientIp}`, username: email.toLowerCase() };
      const wait = throttle.retryAfter(attempt);
      if (wait > 0) return throttled(ctx, email, wait);
      const result = await ctx.resolve(TOKENS.portalLogins).checkPassword(email, field(ctx.form, 'password'));
      const audit = ctx.resolve(TOKENS.auditLog);
      if (!result.ok) {
        throttle.recordFailure(attempt);
        await audit.record(
          {
            kind: 'reseller',
            id: null,
            label: email || '(no email)',
            clientIp: ctx.clientIp,
            requestId: ctx.requestId,
          },
          { action: 'reseller.portal.sign_in.failed', after: { step: 'password', reason: result.reason } },
        );
        const error = result.reason === 'suspended' ? SUSPENDED : SIGN_IN_FAILED;
        return ctx.render('sign-in', { pageTitle: 'Sign in', email, error }, { status: 401 });
      }
      const { reseller } = result;
      if (result.hasSecondFactor) {
        await ctx.signIn.start('reseller', reseller.id, 'second_factor');
        return ctx.redirect('/sign-in/code');
      }
      throttle.recordSuccess(attempt);
      await ctx.signIn.start('reseller', reseller.id, 'signed_in');
      await audit.record(resellerActor(reseller, { clientIp: ctx.clientIp, requestId: ctx.requestId }), {
        action: 'reseller.portal.sign_in',
        subject: { kind: 'reseller', id: reseller.id },
      });
      return ctx.redirect('/');
    },
  },
  {
    method: 'get',
    path: '/sign-in/code',
    access: 'sign_in_step',
    handler: async (ctx) => {
      if (ctx.session?.stage !== 'second_factor') return ctx.redirect(portalStep(ctx.session));
      return ctx.render('second-factor', { pageTitle: 'Second factor' });
    },
  },
  {
    method: 'post',
    path: '/sign-in/code',
    access: 'sign_in_step',
    handler: async (ctx) => {
      if (ctx.session?.stage !== 'second_factor') return ctx.redirect(portalStep(ctx.session));
      const { reseller } = ctx.principal;
      const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
      const attempt = { address: `portal:${ctx.clientIp}`, username: reseller.email };
      const wait = throttle.retryAfter(attempt);
      if (wait > 0) return throttled(ctx, reseller.email, wait);
      const actor = resellerActor(reseller, { clientIp: ctx.clientIp, requestId: ctx.requestId });
      const audit = ctx.resolve(TOKENS.auditLog);
      if (!(await ctx.resolve(TOKENS.portalLogins).checkSecondFactor(actor, reseller.id, field(ctx.form, 'code')))) {
        throttle.recordFailure(attempt);
        await audit.record(actor, {
          action: 'reseller.portal.sign_in.failed',
          subject: { kind: 'reseller', id: reseller.id },
          after: { step: 'second_factor' },
        });
        return ctx.render('second-factor', { pageTitle: 'Second factor', error: CODE_FAILED }, { status: 401 });
      }
      throttle.recordSuccess(attempt);
      await ctx.signIn.advance('signed_in');
      await audit.record(actor, { action: 'reseller.portal.sign_in', subject: { kind: 'reseller', id: reseller.id } });
      return ctx.redirect('/');
    },
  },
  {
    method: 'post',
    path: '/sign-out',
    access: 'sign_in_step',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      await ctx.signIn.end();
      await ctx
        .resolve(TOKENS.auditLog)
        .record(resellerActor(reseller, { clientIp: ctx.clientIp, requestId: ctx.requestId }), {
          action: 'reseller.portal.sign_out',
          subject: { kind: 'reseller', id: reseller.id },
        });
      return ctx.redirect('/sign-in?notice=signed_out');
    },
  },
  {
    method: 'get',
    path: '/invitation',
    access: 'public',
    handler: async (ctx) => {
      const token = field(ctx.query, 'token');
      const holder = await ctx.resolve(TOKENS.portalLogins).invitationHolder(token);
      if (!holder) return ctx.render('invitation', { pageTitle: 'Set your password', invalid: true }, { status: 410 });
      return ctx.render('invitation', { pageTitle: 'Set your password', token, email: holder.email });
    },
  },
  {
    method: 'post',
    path: '/invitation',
    access: 'public',
    handler: async (ctx) => {
      const token = field(ctx.form, 'token');
      const logins = ctx.resolve(TOKENS.portalLogins);
      const holder = await logins.invitationHolder(token);
      if (!holder) return ctx.render('invitation', { pageTitle: 'Set your password', invalid: true }, { status: 410 });
      try {
        await logins.acceptInvitation(token, field(ctx.form, 'password'), field(ctx.form, 'confirmation'));
      } catch (error) {
        if (isDomainError(error) && error.code === 'validation_failed')
          return ctx.render(
            'invitation',
            { pageTitle: 'Set your password', token, email: holder.email, error: error.message },
            { status: 400 },
          );
        throw error;
      }
      // A new password ends every session signed in with the old one.
      await ctx.resolve(WEB_TOKENS.sessions).endAllOf('reseller', holder.id);
      return ctx.redirect('/sign-in?notice=password_set');
    },
  },
];

function throttled(ctx: PortalContext, email: string, wait: number) {
  return ctx.render(
    'sign-in',
    {
      pageTitle: 'Sign in',
      email,
      error: `Too many failed attempts from your address. Try again in ${Math.ceil(wait / 60)} minute(s).`,
    },
    { status: 429, headers: { 'Retry-After': String(Math.ceil(wait)) } },
  );
}

function noticeOf(code: string): string | undefined {
  return { password_set: 'Your password is set. Sign in with it.', signed_out: 'You are signed out.' }[code];
}
