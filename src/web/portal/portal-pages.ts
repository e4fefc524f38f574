import { ACCOUNT_PAGES } from './account-pages';
import { API_PAGES } from './api-pages';
import { DOMAIN_PAGES } from './domain-pages';
import { DOMAIN_SETTINGS_PAGES } from './domain-settings-pages';
import { LOGIN_PAGES } from './login-pages';
import { PASSWORD_RESET_PAGES } from './password-reset-pages';
import type { PortalPage } from './portal-access';
import { SIGN_IN_PAGES } from './sign-in-pages';
import { WEBHOOK_PAGES } from './webhook-pages';

/** The portal's page table: every page states its access rule (portal-access.ts). A new page goes in its area's file. */
export const PORTAL_PAGES: readonly PortalPage[] = [
  ...SIGN_IN_PAGES,
  ...PASSWORD_RESET_PAGES,
  ...ACCOUNT_PAGES,
  ...DOMAIN_PAGES,
  ...DOMAIN_SETTINGS_PAGES,
  ...API_PAGES,
  ...LOGIN_PAGES,
  ...WEBHOOK_PAGES,
];
