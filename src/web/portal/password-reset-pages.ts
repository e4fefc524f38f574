import { escapeHtml } from '../../core/mail/mailer';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import type { PortalContext, PortalPage } from './portal-access';

/**
 * "Forgot password" on the portal's sign-in page (docs/portal.md#password-reset-by-email): a
 * one-time link to set a new password is mailed to the reseller, the same link as an invitation
 * (24 h, used once, earlier links stop working). Every request gets the same answer whether or
 * not the email is a reseller's, and the mail is sent after the answer, so neither the words nor
 * the time tell. Requests are throttled per address and per (address, email), like sign-in
 * failures. Without mail (SMTP_URL) or a public address for the link (PUBLIC_URL) the page says
 * to ask the provider for an invitation.
 */
export const PASSWORD_RESET_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/password-reset',
    access: 'public',
    handler: async (ctx) => {
      if (ctx.session) return ctx.redirect('/');
      return resetPage(ctx, {});
    },
  },
  {
    method: 'post',
    path: '/password-reset',
    access: 'public',
    handler: async (ctx) => {
      const base = linkBase(ctx);
      if (base === undefined) return resetPage(ctx, {});
      const email = field(ctx.form, 'email').trim().slice(0, 254);
      if (email === '') return resetPage(ctx, { error: 'Type the email address of your reseller account.' }, 400);
      const throttle = ctx.resolve(WEB_TOKENS.signInThrottle);
      // Counted with sign-in failures: per address, and per (address, email), never per email alone (ADR 3).
      const attempt = { address: `portal:${ctx.clientIp}`, username: `password-reset:${email.toLowerCase()}` };
      const wait = throttle.retryAfter(attempt);
      if (wait > 0)
        return ctx.render(
          'password-reset',
          {
            pageTitle: 'Forgot your password',
            canMail: true,
            email,
            error: `Too many requests from your address. Try again in ${Math.ceil(wait / 60)} minute(s).`,
          },
          { status: 429, headers: { 'Retry-After': String(Math.ceil(wait)) } },
        );
      throttle.recordFailure(attempt);
      const reset = await ctx.resolve(TOKENS.portalLogins).requestPasswordReset(email);
      if (reset) {
        const link = `${base}${ctx.url('/invitation')}?token=${encodeURIComponent(reset.token)}`;
        const logger = ctx.resolve(TOKENS.logger);
        // After the answer: a mail server's pace must not tell an address that is a reseller's from one that is not.
        void ctx
          .resolve(TOKENS.mailer)
          .send(resetMail(reset.reseller.email, link, reset.expiresAt))
          .catch((error: unknown) =>
            logger.warn({ err: error, reseller: reset.reseller.id }, 'portal password reset: the mail was not sent'),
          );
      }
      return resetPage(ctx, { sent: true });
    },
  },
];

function resetPage(ctx: PortalContext, values: Record<string, unknown>, status = 200) {
  return ctx.render(
    'password-reset',
    { pageTitle: 'Forgot your password', canMail: linkBase(ctx) !== undefined, email: '', ...values },
    { status },
  );
}

/** The address links are built on: the configured public URL only, never the request's Host header. */
function linkBase(ctx: PortalContext): string | undefined {
  const settings = ctx.resolve(WEB_TOKENS.settings);
  if (!ctx.resolve(TOKENS.mailer).isConfigured || !settings.publicUrl) return undefined;
  return settings.publicUrl.replace(/\/+$/, '');
}

function resetMail(to: string, link: string, expiresAt: Date) {
  const until = `${expiresAt.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
  const text = [
    'Someone (we hope you) asked to set a new password for your reseller portal.',
    '',
    `Open this link to choose it; it works once, until ${until}:`,
    link,
    '',
    'If you did not ask, ignore this mail: your password stays as it is. Your API key is not affected either way.',
  ].join('\n');
  const html = `<p>Someone (we hope you) asked to set a new password for your reseller portal.</p><p>Open this link to choose it; it works once, until ${escapeHtml(until)}:<br><a href="${escapeHtml(link)}">${escapeHtml(link)}</a></p><p>If you did not ask, ignore this mail: your password stays as it is. Your API key is not affected either way.</p>`;
  return { to, subject: 'Set a new password for your reseller portal', text, html };
}
