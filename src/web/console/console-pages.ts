import { ACCOUNT_PAGES } from './account-pages';
import { CATALOGUE_PAGES } from './catalogue-pages';
import type { ConsolePage } from './console-access';
import { DASHBOARD_PAGES } from './dashboard-pages';
import { DOMAIN_PAGES } from './domain-pages';
import { LOG_PAGES } from './log-pages';
import { ORDER_PAGES } from './order-pages';
import { RESELLER_PAGES } from './reseller-pages';
import { SETTINGS_PAGES } from './settings-pages';
import { SIGN_IN_PAGES } from './sign-in-pages';
import { WEBHOOK_PAGES } from './webhook-pages';

/** The console's page table: every page states its access rule (console-access.ts). A new page goes in its area's file. */
export const CONSOLE_PAGES: readonly ConsolePage[] = [
  ...SIGN_IN_PAGES,
  ...DASHBOARD_PAGES,
  ...RESELLER_PAGES,
  ...ORDER_PAGES,
  ...DOMAIN_PAGES,
  ...CATALOGUE_PAGES,
  ...LOG_PAGES,
  ...SETTINGS_PAGES,
  ...WEBHOOK_PAGES,
  ...ACCOUNT_PAGES,
];
