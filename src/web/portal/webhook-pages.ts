import { webhookPages } from '../console/webhook-pages';
import type { PortalPage } from './portal-access';

/** The reseller's own endpoints and deliveries: another reseller's ids answer as missing ones (the service checks the owner). */
export const WEBHOOK_PAGES: readonly PortalPage[] = webhookPages({
  read: 'reseller',
  change: 'reseller',
  resellerOf: (ctx) => ctx.principal.reseller.id,
  ownerOf: async (ctx) => ({ resellerId: ctx.principal.reseller.id }),
});
