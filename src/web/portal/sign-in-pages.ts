import { TOKENS } from '../../core/tokens';
import { WEB_TOKENS } from '../web-tokens';
import { type SignInLogins, signInPages } from '../sign-in-flow';
import type { PortalPage, PortalPrincipal } from './portal-access';

/** The portal's resellers on the shared sign-in flow (src/web/sign-in-flow.ts): PortalLogins answers. */
const PORTAL_LOGINS: SignInLogins<PortalPrincipal> = {
  area: 'portal',
  principalKind: 'reseller',
  auditPrefix: 'reseller.portal',
  failed: 'That email and password do not match a reseller who may sign in.',
  suspended: 'This reseller account is suspended. Contact your provider.',
  identity: ({ reseller }) => reseller,
  async checkPassword(ctx, email, password) {
    const result = await ctx.resolve(TOKENS.portalLogins).checkPassword(email, password);
    if (!result.ok) return result;
    return { ok: true, who: result.reseller, next: { step: result.hasSecondFactor ? 'second_factor' : 'signed_in' } };
  },
  checkSecondFactor: (ctx, { reseller }, actor, code) =>
    ctx.resolve(TOKENS.portalLogins).checkSecondFactor(actor, reseller.id, code),
  link: {
    path: '/invitation',
    template: 'invitation',
    holder: (ctx, token) => ctx.resolve(TOKENS.portalLogins).invitationHolder(token),
    use: async (ctx, token, password, confirmation) => {
      const reseller = await ctx.resolve(TOKENS.portalLogins).acceptInvitation(token, password, confirmation);
      // A new password (after a reset by email, say) ends every session signed in with the old one.
      await ctx.resolve(WEB_TOKENS.sessions).endAllOf('reseller', reseller.id);
    },
  },
};

/** Sign-in (email, password, then the code when the reseller has a second factor), sign-out, and the invitation. */
export const SIGN_IN_PAGES: readonly PortalPage[] = signInPages(PORTAL_LOGINS, {
  public: 'public',
  step: 'sign_in_step',
});
