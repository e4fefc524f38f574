import { ACCOUNT_PAGES } from './account-pages';
import type { ConsolePage } from './console-access';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { RESELLER_PAGES } from './reseller-pages';
import { SIGN_IN_PAGES } from './sign-in-pages';

/** The console's page table: every page states its access rule (console-access.ts). A new page goes in its area's file. */
export const CONSOLE_PAGES: readonly ConsolePage[] = [
  ...SIGN_IN_PAGES,
  ...DASHBOARD_PAGES,
  ...RESELLER_PAGES,
  ...ACCOUNT_PAGES,
];
