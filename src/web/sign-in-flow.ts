import type { Actor } from '../core/audit/audit-log';
import { isDomainError } from '../core/common/errors';
import { TOKENS } from '../core/tokens';
import type { Page, PageContext, PageResult } from './page-table';
import type { WebSession } from './sessions';
import { field } from './web-app';
import { WEB_TOKENS } from './web-tokens';

/** Who signs in, as the flow sees them: an id and an email. */
export interface SignInIdentity {
  readonly id: string;
  readonly email: string;
}

/** Email and password checked: refused (one message, or the suspended one once the password matched), or what comes next. */
export type PasswordOutcome =
  | { readonly ok: false; readonly reason: 'invalid' | 'suspended' }
  | {
      readonly ok: true;
      readonly who: SignInIdentity;
      /** The second factor is asked; or one must be set up first (its secret, sealed); or signed in. */
      readonly next:
        | { readonly step: 'second_factor' }
        | { readonly step: 'enrol'; readonly sealedSecret: string }
        | { readonly step: 'signed_in' };
    };

/**
 * What one area's sign-in needs of its principal's login service (OperatorService for the console,
 * PortalLogins for the portal): the pages, the throttle, the session steps and the audit entries are
 * the flow's, the same for both.
 */
export interface SignInLogins<Principal> {
  /** The throttle's address prefix (`console:<ip>`, `portal:<ip>`): one area's failures never block the other's. */
  readonly area: 'console' | 'portal';
  readonly principalKind: WebSession['principalKind'];
  /** The audit actions' prefix: `<prefix>.sign_in`, `.sign_in.failed`, `.sign_out`. */
  readonly auditPrefix: string;
  /** The one message for a wrong email or password (it never says whether the email exists). */
  readonly failed: string;
  readonly suspended?: string;
  identity(principal: Principal): SignInIdentity;
  checkPassword(ctx: PageContext<Principal>, email: string, password: string): Promise<PasswordOutcome>;
  checkSecondFactor(ctx: PageContext<Principal>, principal: Principal, actor: Actor, code: string): Promise<boolean>;
  /** Setting up a second factor during sign-in (the console's admins); absent: no such step. */
  readonly enrolment?: {
    describe(ctx: PageContext<Principal>, principal: Principal, sealedSecret: string): { secret: string; uri: string };
    enrol(ctx: PageContext<Principal>, principal: Principal, sealedSecret: string, code: string): Promise<string[]>;
  };
  /** The one-time link that sets a password: an operator's set-password link, a reseller's invitation. */
  readonly link: {
    readonly path: string;
    readonly template: string;
    holder(ctx: PageContext<Principal>, token: string): Promise<SignInIdentity | undefined>;
    use(ctx: PageContext<Principal>, token: string, password: string, confirmation: string): Promise<void>;
  };
}

const CODE_FAILED = 'That code is not right. Use the 6 digits your app shows now, or one of your recovery codes.';

/** Where a session goes next: sign-in, the step it owes, or the area's home. */
export function stepPath(session: WebSession | undefined): string {
  if (!session) return '/sign-in';
  if (session.stage === 'second_factor') return '/sign-in/code';
  if (session.stage === 'enrol_second_factor') return '/sign-in/enrol';
  return '/';
}

/**
 * The sign-in pages of an area, one flow for the console and the portal: email and password, then
 * the TOTP code (or, where the area has it, setting one up), sign-out, and the one-time link that
 * sets a password. Throttled per address and per (address, email); one generic failure message;
 * every sign-in, failure and sign-out audited; a 429 says when to try again (Retry-After).
 */
export function signInPages<Principal, Access extends string>(
  logins: SignInLogins<Principal>,
  access: { readonly public: Access; readonly step: Access },
): Array<Page<Principal, Access>> {
  type Ctx = PageContext<Principal>;
  const addressOf = (ctx: Ctx) => `${logins.area}:${ctx.clientIp}`;
  const actorOf = (ctx: Ctx, who: SignInIdentity): Actor => ({
    kind: logins.principalKind,
    id: who.id,
    label: who.email,
    clientIp: ctx.clientIp,
    requestId: ctx.requestId,
  });
  const audit = (ctx: Ctx, actor: Actor, action: string, after?: unknown) =>
    ctx.resolve(TOKENS.auditLog).record(actor, {
      action: `${logins.auditPrefix}.${action}`,
      subject: actor.id ? { kind: logins.principalKind, id: actor.id } : null,
      after,
    });
  const signedIn = (ctx: Ctx, who: SignInIdentity) => audit(ctx, actorOf(ctx, who), 'sign_in');

  const throttled = (ctx: Ctx, email: string, wait: number) =>
    ctx.render(
      'sign-in',
      {
        pageTitle: 'Sign in',
        email,
        error: `Too many failed attempts from your address. Try again in ${Math.ceil(wait / 60)} minute(s).`,
      },
      { status: 429, headers: { 'Retry-After': String(Math.ceil(wait)) } },
    );

  const enrolForm = (ctx: Ctx, error?: string): PageResult => {
    const { secret, uri } = logins.enrolment!.describe(ctx, ctx.principal, ctx.session?.data.secret ?? '');
    return ctx.render(
      'enrol',
      { pageTitle: 'Set up your second factor', secret, uri, error },
      { status: error ? 400 : 200 },
    );
  };

  const linkPage = (ctx: Ctx, values: Record<string, unknown>, status = 200) =>
    ctx.render(logins.link.template, { pageTitle: 'Set your password', ...values }, { status });

  const pages: Array<Page<Principal, Access>> = [
    {
      method: 'get',
      path: '/sign-in',
      access: access.public,
      handler: async (ctx) => {
        if (ctx.session) return ctx.redirect(stepPath(ctx.session));
        return ctx.render('sign-in', { pageTitle: 'Sign in', email: '', notice: noticeOf(field(ctx.query, 'notice')) });
      },
    },
    {
      method: 'post',
      path: '/sign-in',
      access: access.public,
      handler: async (ctx) => {
        const email = field(ctx.form, 'email').trim().slice(0, 254);
        const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
        const attempt = { address: addressOf(ctx), username: email.toLowerCase() };
        const wait = throttle.retryAfter(attempt);
        if (wait > 0) return throttled(ctx, email, wait);
        const outcome = await logins.checkPassword(ctx, email, field(ctx.form, 'password'));
        if (!outcome.ok) {
          throttle.recordFailure(attempt);
          const stranger: Actor = {
            kind: logins.principalKind,
            id: null,
            label: email || '(no email)',
            clientIp: ctx.clientIp,
            requestId: ctx.requestId,
          };
          await audit(ctx, stranger, 'sign_in.failed', { step: 'password', reason: outcome.reason });
          const error = outcome.reason === 'suspended' && logins.suspended ? logins.suspended : logins.failed;
          return ctx.render('sign-in', { pageTitle: 'Sign in', email, error }, { status: 401 });
        }
        const { who, next } = outcome;
        if (next.step === 'second_factor') {
          await ctx.signIn.start(logins.principalKind, who.id, 'second_factor');
          return ctx.redirect('/sign-in/code');
        }
        if (next.step === 'enrol') {
          await ctx.signIn.start(logins.principalKind, who.id, 'enrol_second_factor', { secret: next.sealedSecret });
          return ctx.redirect('/sign-in/enrol');
        }
        throttle.recordSuccess(attempt);
        await ctx.signIn.start(logins.principalKind, who.id, 'signed_in');
        await signedIn(ctx, who);
        return ctx.redirect('/');
      },
    },
    {
      method: 'get',
      path: '/sign-in/code',
      access: access.step,
      handler: async (ctx) => {
        if (ctx.session?.stage !== 'second_factor') return ctx.redirect(stepPath(ctx.session));
        return ctx.render('second-factor', { pageTitle: 'Second factor' });
      },
    },
    {
      method: 'post',
      path: '/sign-in/code',
      access: access.step,
      handler: async (ctx) => {
        if (ctx.session?.stage !== 'second_factor') return ctx.redirect(stepPath(ctx.session));
        const who = logins.identity(ctx.principal);
        const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
        const attempt = { address: addressOf(ctx), username: who.email };
        const wait = throttle.retryAfter(attempt);
        if (wait > 0) return throttled(ctx, who.email, wait);
        const actor = actorOf(ctx, who);
        if (!(await logins.checkSecondFactor(ctx, ctx.principal, actor, field(ctx.form, 'code')))) {
          throttle.recordFailure(attempt);
          await audit(ctx, actor, 'sign_in.failed', { step: 'second_factor' });
          return ctx.render('second-factor', { pageTitle: 'Second factor', error: CODE_FAILED }, { status: 401 });
        }
        throttle.recordSuccess(attempt);
        await ctx.signIn.advance('signed_in');
        await signedIn(ctx, who);
        return ctx.redirect('/');
      },
    },
    {
      method: 'post',
      path: '/sign-out',
      access: access.step,
      handler: async (ctx) => {
        const who = logins.identity(ctx.principal);
        // The session's row is deleted, so its cookie opens nothing any more.
        await ctx.signIn.end();
        await audit(ctx, actorOf(ctx, who), 'sign_out');
        return ctx.redirect('/sign-in?notice=signed_out');
      },
    },
    {
      method: 'get',
      path: logins.link.path,
      access: access.public,
      handler: async (ctx) => {
        const token = field(ctx.query, 'token');
        const holder = await logins.link.holder(ctx, token);
        if (!holder) return linkPage(ctx, { invalid: true }, 410);
        return linkPage(ctx, { token, email: holder.email });
      },
    },
    {
      method: 'post',
      path: logins.link.path,
      access: access.public,
      handler: async (ctx) => {
        const token = field(ctx.form, 'token');
        const holder = await logins.link.holder(ctx, token);
        if (!holder) return linkPage(ctx, { invalid: true }, 410);
        try {
          await logins.link.use(ctx, token, field(ctx.form, 'password'), field(ctx.form, 'confirmation'));
        } catch (error) {
          if (isDomainError(error) && error.code === 'validation_failed')
            return linkPage(ctx, { token, email: holder.email, error: error.message }, 400);
          throw error;
        }
        // A new password ends every session signed in with the old one.
        await ctx.resolve(WEB_TOKENS.sessions).endAllOf(logins.principalKind, holder.id);
        return ctx.redirect('/sign-in?notice=password_set');
      },
    },
  ];
  const { enrolment } = logins;
  if (enrolment)
    pages.push(
      {
        method: 'get',
        path: '/sign-in/enrol',
        access: access.step,
        handler: async (ctx) => {
          if (ctx.session?.stage !== 'enrol_second_factor') return ctx.redirect(stepPath(ctx.session));
          return enrolForm(ctx);
        },
      },
      {
        method: 'post',
        path: '/sign-in/enrol',
        access: access.step,
        handler: async (ctx) => {
          const session = ctx.session;
          if (session?.stage !== 'enrol_second_factor' || !session.data.secret) return ctx.redirect(stepPath(session));
          let codes: string[];
          try {
            codes = await enrolment.enrol(ctx, ctx.principal, session.data.secret, field(ctx.form, 'code'));
          } catch (error) {
            if (isDomainError(error) && error.code === 'validation_failed') return enrolForm(ctx, error.message);
            throw error;
          }
          await ctx.signIn.advance('signed_in');
          await signedIn(ctx, logins.identity(ctx.principal));
          return ctx.render('recovery-codes', { pageTitle: 'Recovery codes', codes });
        },
      },
    );
  return pages;
}

function noticeOf(code: string): string | undefined {
  return { password_set: 'Your password is set. Sign in with it.', signed_out: 'You are signed out.' }[code];
}
