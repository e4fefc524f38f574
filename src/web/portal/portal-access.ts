import { stepPath } from '../sign-in-flow';
import type { Reseller } from '../../core/reseller/reseller';
import type { AreaRules, Page, PageContext } from '../page-table';

/** Who is signed in to the portal: an active reseller (a suspended one's session ends at its next request). */
export interface PortalPrincipal {
  readonly reseller: Reseller;
}

/**
 * The portal's access rules. `public`: sign-in and the invitation; `sign_in_step`: any session
 * at any stage (the second-factor step, and sign-out; the handler checks the stage); `reseller`:
 * a signed-in reseller, on its own data only.
 */
export type PortalAccess = 'public' | 'sign_in_step' | 'reseller';

export type PortalPage = Page<PortalPrincipal, PortalAccess>;
export type PortalContext = PageContext<PortalPrincipal>;

/** The portal's navigation, in the order of the header. */
export const PORTAL_NAV: ReadonlyArray<{ readonly path: string; readonly label: string }> = [
  { path: '/', label: 'Dashboard' },
  { path: '/domains', label: 'Domains' },
  { path: '/orders', label: 'Orders' },
  { path: '/statement', label: 'Statement' },
  { path: '/pricing', label: 'Pricing' },
  { path: '/api', label: 'API' },
  { path: '/api-log', label: 'API log' },
  { path: '/integration', label: 'Integration' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/account', label: 'Account' },
];

export function portalRules(): AreaRules<PortalPrincipal, PortalAccess> {
  return {
    publicAccess: ['public'],
    principalOf(named) {
      return named?.kind === 'reseller' && named.reseller.status === 'active'
        ? { reseller: named.reseller }
        : undefined;
    },
    allows(access, _principal, session) {
      if (access === 'sign_in_step') return true;
      return access === 'reseller' && session.stage === 'signed_in';
    },
    redirectFor: (session) => stepPath(session),
    actorOf: ({ reseller }) => ({ kind: 'reseller', id: reseller.id, label: reseller.email }),
    layout(principal, session) {
      if (!principal || session?.stage !== 'signed_in') return { nav: [], who: undefined };
      return { nav: PORTAL_NAV, who: { label: principal.reseller.email } };
    },
  };
}
