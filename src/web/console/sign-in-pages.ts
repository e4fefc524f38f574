import { TOKENS } from '../../core/tokens';
import { operatorActor } from '../../core/operator/operator-service';
import { isDomainError } from '../../core/common/errors';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import { type ConsoleContext, type ConsolePage, stepPath } from './console-access';

/** One message for every failure: it never says whether the email exists. */
const SIGN_IN_FAILED = 'That email and password do not match an operator who may sign in.';
const CODE_FAILED = 'That code is not right. Use the 6 digits your app shows now, or one of your recovery codes.';

export const SIGN_IN_PAGES: readonly ConsolePage[] = [
  {
    method: 'get',
    path: '/sign-in',
    access: 'public',
    handler: async (ctx) => {
      if (ctx.session) return ctx.redirect(stepPath(ctx.session));
      return ctx.render('sign-in', { pageTitle: 'Sign in', email: '', notice: noticeOf(field(ctx.query, 'notice')) });
    },
  },
  {
    method: 'post',
    path: '/sign-in',
    access: 'public',
    handler: async (ctx) => {
      const email = field(ctx.form, 'email').trim().slice(0, 254);
      const password = field(ctx.form, 'password');
      const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
      const attempt = { address: `console:${ctx.clientIp}`, username: email.toLowerCase() };
      const wait = throttle.retryAfter(attempt);
      if (wait > 0) return throttled(ctx, email, wait);
      const operators = ctx.resolve(TOKENS.operatorService);
      const operator = await operators.checkPassword(email, password);
      const audit = ctx.resolve(TOKENS.auditLog);
      if (!operator) {
        throttle.recordFailure(attempt);
        await audit.record(
          {
            kind: 'operator',
            id: null,
            label: email || '(no email)',
            clientIp: ctx.clientIp,
            requestId: ctx.requestId,
          },
          { action: 'operator.sign_in.failed', after: { step: 'password' } },
        );
        return ctx.render('sign-in', { pageTitle: 'Sign in', email, error: SIGN_IN_FAILED }, { status: 401 });
      }
      const require2fa = ctx.resolve(WEB_TOKENS.settings).consoleRequire2fa;
      if (operator.hasSecondFactor) {
        await ctx.signIn.start('operator', operator.id, 'second_factor');
        return ctx.redirect('/sign-in/code');
      }
      if (operator.role === 'admin' && require2fa) {
        const { sealed } = operators.newSecondFactor(operator);
        await ctx.signIn.start('operator', operator.id, 'enrol_second_factor', { secret: sealed });
        return ctx.redirect('/sign-in/enrol');
      }
      throttle.recordSuccess(attempt);
      await ctx.signIn.start('operator', operator.id, 'signed_in');
      await audit.record(operatorActor(operator, { clientIp: ctx.clientIp, requestId: ctx.requestId }), {
        action: 'operator.sign_in',
        subject: { kind: 'operator', id: operator.id },
      });
      return ctx.redirect('/');
    },
  },
  {
    method: 'get',
    path: '/sign-in/code',
    access: 'sign_in_step',
    handler: async (ctx) => {
      if (ctx.session?.stage !== 'second_factor') return ctx.redirect(stepPath(ctx.session));
      return ctx.render('second-factor', { pageTitle: 'Second factor' });
    },
  },
  {
    method: 'post',
    path: '/sign-in/code',
    access: 'sign_in_step',
    handler: async (ctx) => {
      if (ctx.session?.stage !== 'second_factor') return ctx.redirect(stepPath(ctx.session));
      const { operator } = ctx.principal;
      const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
      const attempt = { address: `console:${ctx.clientIp}`, username: operator.email };
      const wait = throttle.retryAfter(attempt);
      if (wait > 0) return throttled(ctx, operator.email, wait);
      const audit = ctx.resolve(TOKENS.auditLog);
      const actor = operatorActor(operator, { clientIp: ctx.clientIp, requestId: ctx.requestId });
      if (!(await ctx.resolve(TOKENS.operatorService).checkSecondFactor(operator.id, field(ctx.form, 'code')))) {
        throttle.recordFailure(attempt);
        await audit.record(actor, {
          action: 'operator.sign_in.failed',
          subject: { kind: 'operator', id: operator.id },
          after: { step: 'second_factor' },
        });
        return ctx.render('second-factor', { pageTitle: 'Second factor', error: CODE_FAILED }, { status: 401 });
      }
      throttle.recordSuccess(attempt);
      await ctx.signIn.advance('signed_in');
      await audit.record(actor, { action: 'operator.sign_in', subject: { kind: 'operator', id: operator.id } });
      return ctx.redirect('/');
    },
  },
  {
    method: 'get',
    path: '/sign-in/enrol',
    access: 'sign_in_step',
    handler: async (ctx) => {
      if (ctx.session?.stage !== 'enrol_second_factor') return ctx.redirect(stepPath(ctx.session));
      return enrolForm(ctx);
    },
  },
  {
    method: 'post',
    path: '/sign-in/enrol',
    access: 'sign_in_step',
    handler: async (ctx) => {
      const session = ctx.session;
      if (session?.stage !== 'enrol_second_factor' || !session.data.secret) return ctx.redirect(stepPath(session));
      const { operator } = ctx.principal;
      let codes: string[];
      try {
        codes = await ctx
          .resolve(TOKENS.operatorService)
          .enrol(operator.id, session.data.secret, field(ctx.form, 'code'));
      } catch (error) {
        if (isDomainError(error) && error.code === 'validation_failed') return enrolForm(ctx, error.message);
        throw error;
      }
      await ctx.signIn.advance('signed_in');
      await ctx
        .resolve(TOKENS.auditLog)
        .record(operatorActor(operator, { clientIp: ctx.clientIp, requestId: ctx.requestId }), {
          action: 'operator.sign_in',
          subject: { kind: 'operator', id: operator.id },
        });
      return ctx.render('recovery-codes', { pageTitle: 'Recovery codes', codes });
    },
  },
  {
    method: 'post',
    path: '/sign-out',
    access: 'sign_in_step',
    handler: signOut,
  },
  {
    method: 'get',
    path: '/set-password',
    access: 'public',
    handler: async (ctx) => {
      const token = field(ctx.query, 'token');
      const holder = await ctx.resolve(TOKENS.operatorService).linkHolder(token);
      if (!holder)
        return ctx.render('set-password', { pageTitle: 'Set your password', invalid: true }, { status: 410 });
      return ctx.render('set-password', { pageTitle: 'Set your password', token, email: holder.email });
    },
  },
  {
    method: 'post',
    path: '/set-password',
    access: 'public',
    handler: async (ctx) => {
      const token = field(ctx.form, 'token');
      const operators = ctx.resolve(TOKENS.operatorService);
      const holder = await operators.linkHolder(token);
      if (!holder)
        return ctx.render('set-password', { pageTitle: 'Set your password', invalid: true }, { status: 410 });
      try {
        await operators.setPassword(token, field(ctx.form, 'password'), field(ctx.form, 'confirmation'));
      } catch (error) {
        if (isDomainError(error) && error.code === 'validation_failed')
          return ctx.render(
            'set-password',
            { pageTitle: 'Set your password', token, email: holder.email, error: error.message },
            { status: 400 },
          );
        throw error;
      }
      await ctx.resolve(WEB_TOKENS.sessions).endAllOf('operator', holder.id);
      return ctx.redirect('/sign-in?notice=password_set');
    },
  },
];

/** Sign-out from any stage: the session's row is deleted, so its cookie opens nothing any more. */
async function signOut(ctx: ConsoleContext) {
  const { operator } = ctx.principal;
  await ctx.signIn.end();
  await ctx
    .resolve(TOKENS.auditLog)
    .record(operatorActor(operator, { clientIp: ctx.clientIp, requestId: ctx.requestId }), {
      action: 'operator.sign_out',
      subject: { kind: 'operator', id: operator.id },
    });
  return ctx.redirect('/sign-in?notice=signed_out');
}

function enrolForm(ctx: ConsoleContext, error?: string) {
  const { secret, uri } = ctx
    .resolve(TOKENS.operatorService)
    .describeSecondFactor(ctx.session?.data.secret ?? '', ctx.principal.operator);
  return ctx.render(
    'enrol',
    { pageTitle: 'Set up your second factor', secret, uri, error },
    { status: error ? 400 : 200 },
  );
}

function throttled(ctx: ConsoleContext, email: string, wait: number) {
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
