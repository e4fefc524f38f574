import { stepPath } from '../sign-in-flow';
import type { Operator } from '../../core/operator/operator';
import type { AreaRules, Page, PageContext } from '../page-table';

/** Who is signed in to the console. */
export interface ConsolePrincipal {
  readonly operator: Operator;
}

/**
 * The console's access rules. `public`: sign-in and set-password pages; `sign_in_step`: any
 * session at any stage (the steps owed after the password, and sign-out; the handler checks the stage); `viewer`: any signed-in operator (reading);
 * `admin`: a signed-in admin (every change).
 */
export type ConsoleAccess = 'public' | 'sign_in_step' | 'viewer' | 'admin';

export type ConsolePage = Page<ConsolePrincipal, ConsoleAccess>;
export type ConsoleContext = PageContext<ConsolePrincipal>;

/** The console's navigation, in the order of the header. */
export const CONSOLE_NAV: ReadonlyArray<{ readonly path: string; readonly label: string }> = [
  { path: '/', label: 'Dashboard' },
  { path: '/resellers', label: 'Resellers' },
  { path: '/orders', label: 'Orders' },
  { path: '/domains', label: 'Domains' },
  { path: '/groups', label: 'Groups & prices' },
  { path: '/api-log', label: 'API log' },
  { path: '/audit', label: 'Audit log' },
  { path: '/webhooks', label: 'Webhooks' },
  { path: '/settings', label: 'Settings' },
];

export function consoleRules(): AreaRules<ConsolePrincipal, ConsoleAccess> {
  return {
    publicAccess: ['public'],
    principalOf(named) {
      return named?.kind === 'operator' && !named.operator.disabledAt ? { operator: named.operator } : undefined;
    },
    allows(access, principal, session) {
      if (access === 'sign_in_step') return true;
      if (session.stage !== 'signed_in') return false;
      return access === 'viewer' || (access === 'admin' && principal.operator.role === 'admin');
    },
    redirectFor: (session) => stepPath(session),
    actorOf: ({ operator }) => ({ kind: 'operator', id: operator.id, label: operator.email }),
    layout(principal, session) {
      if (!principal || session?.stage !== 'signed_in') return { nav: [], who: undefined };
      return {
        nav: CONSOLE_NAV,
        who: { label: principal.operator.email, role: principal.operator.role },
        isAdmin: principal.operator.role === 'admin',
      };
    },
  };
}
