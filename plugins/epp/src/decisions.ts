import type { ContactRole, DomainSyncResult, TransferSyncResult } from 'domain-reseller';
import { datePart, type DomainInfo, type TransferData } from './domain-info';
import { type Failure, pending } from './outcomes';

type Synced = { readonly ok: true } & DomainSyncResult;
type TransferSynced = { readonly ok: true } & TransferSyncResult;

/**
 * What the registry's answers mean for the platform: pure functions of `<domain:info>` and
 * `<domain:transfer op="query">` answers (and poll news), so the rules are tested without a
 * registry. `today` is YYYY-MM-DD from the platform's clock.
 */

/** Locked when every status the operator counts as the registrar lock is set. */
export function isLocked(info: DomainInfo, lockStatuses: readonly string[]): boolean {
  return lockStatuses.every((s) => info.statuses.includes(s));
}

/** The platform's domain statuses (docs/orders.md#domain-states-set-by-orders) from EPP and RGP statuses. */
export function statusOf(info: DomainInfo, today: string): string {
  if (info.statuses.includes('pendingCreate')) return 'Pending Registration';
  if (info.statuses.includes('pendingTransfer')) return 'Pending Transfer';
  if (info.rgpStatuses.includes('redemptionPeriod') || info.rgpStatuses.includes('pendingRestore')) return 'Redemption';
  if (info.statuses.includes('pendingDelete')) return 'Cancelled';
  const expiry = datePart(info.expiresAt);
  if (expiry && expiry < today) return info.rgpStatuses.includes('autoRenewPeriod') ? 'Grace' : 'Expired';
  return 'Active';
}

/** The contact id of each role (the registrant, and the first contact of each other type). */
export function roleIds(info: DomainInfo): Partial<Record<ContactRole, string>> {
  const out: Partial<Record<ContactRole, string>> = {};
  if (info.registrant) out.registrant = info.registrant;
  for (const c of info.contacts) out[c.type] ??= c.id;
  return out;
}

/** Poll news that another registrar took the domain (approved by the losing registrar or the registry). */
export function isTransferredAwayBy(news: TransferData | undefined, clientId: string): boolean {
  return (
    news !== undefined && news.requestedBy !== clientId && ['clientApproved', 'serverApproved'].includes(news.status)
  );
}

/**
 * Domain sync of a domain the registry will not show us (an authorisation error): a transfer we
 * asked for may still be running, which is not the same as gone.
 */
export function syncOfUnshown(transfer: TransferData | undefined, clientId: string, name: string): Synced | Failure {
  if (transfer?.requestedBy === clientId && transfer.status === 'pending')
    return pending(`the transfer of ${name} to us is still pending`);
  return { ok: true, active: false, expired: false, transferredAway: true };
}

/** Domain sync of a domain the registry answered info for. */
export function syncOfInfo(info: DomainInfo, clientId: string, today: string): Synced | Failure {
  if (info.sponsor !== clientId)
    return { ok: true, active: false, expired: false, transferredAway: true, expiryDate: datePart(info.expiresAt) };
  if (info.statuses.includes('pendingCreate')) return pending(`${info.name} is still being created at the registry`);
  const expiryDate = datePart(info.expiresAt);
  const isDeleted =
    info.statuses.includes('pendingDelete') ||
    info.rgpStatuses.includes('redemptionPeriod') ||
    info.rgpStatuses.includes('pendingDelete');
  const isExpired = expiryDate !== undefined && expiryDate < today;
  return {
    ok: true,
    active: !isDeleted && !isExpired,
    expired: !isDeleted && isExpired,
    transferredAway: false,
    cancelled: isDeleted,
    expiryDate,
  };
}

/** Domain sync of a domain the registry does not hold: deleted and purged, or never created (a pending order that failed). */
export const SYNC_OF_ABSENT: Synced = {
  ok: true,
  active: false,
  expired: false,
  transferredAway: false,
  cancelled: true,
};

/**
 * Transfer sync from the state of a transfer we requested; undefined when the transfer is not
 * ours (settled by who sponsors the domain: `transferSyncOfSponsor`). A completed transfer
 * without an expiry date in the answer has `expiryDate` undefined: the caller asks info.
 */
export function transferSyncOfTransfer(
  transfer: TransferData | undefined,
  clientId: string,
): TransferSynced | undefined {
  if (!transfer || transfer.requestedBy !== clientId) return undefined;
  if (transfer.status === 'pending') return { ok: true, completed: false, failed: false };
  if (transfer.status === 'clientApproved' || transfer.status === 'serverApproved')
    return { ok: true, completed: true, failed: false, expiryDate: datePart(transfer.expiresAt) };
  const by = transfer.status.startsWith('client') ? 'losing registrar' : 'registry';
  const what = transfer.status.replace(/^(client|server)/, '').toLowerCase();
  return { ok: true, completed: false, failed: true, reason: `the transfer was ${what} by the ${by}` };
}

/** Transfer sync when no transfer of ours is pending (2301, or someone else's): settled by who sponsors the domain now. */
export function transferSyncOfSponsor(info: DomainInfo | undefined, clientId: string, name: string): TransferSynced {
  if (info?.sponsor === clientId)
    return { ok: true, completed: true, failed: false, expiryDate: datePart(info.expiresAt) };
  return {
    ok: true,
    completed: false,
    failed: true,
    reason: `no transfer of ${name} is pending and another registrar sponsors it`,
  };
}
