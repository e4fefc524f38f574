import type { DomainStatus } from './domain';

/** What a domain status means to the platform: the questions orders, sync, management and the gateway ask of it. */
interface StatusMeaning {
  /** A register or transfer order for the name is in progress: its outcome decides the domain; no other order starts. */
  readonly isPending: boolean;
  /**
   * The name has left the platform (deleted, an order that never took effect, transferred away):
   * the registrar no longer holds it for us, information and sync answer from our record, every
   * other route refuses it, and anyone may order the name again.
   */
  readonly isGone: boolean;
  /** A renewal may be ordered (docs/api.md#renew-a-domain). */
  readonly isRenewable: boolean;
  /** Domain sync follows the registrar's status and expiry for it; pending domains belong to their orders. */
  readonly isSyncable: boolean;
  /** Past its expiry on the platform (domain information's `expired`). */
  readonly isExpired: boolean;
}

const NEITHER: StatusMeaning = {
  isPending: false,
  isGone: false,
  isRenewable: false,
  isSyncable: false,
  isExpired: false,
};

/**
 * A domain's statuses (the billing platform's, docs/orders.md#domain-states-set-by-orders) and
 * what each means, in one table: a status added to `DOMAIN_STATUSES` does not compile until it
 * has its row here. The moves between them are made by orders (docs/orders.md) and sync
 * (docs/domain-management.md).
 */
export const DOMAIN_LIFECYCLE: Readonly<Record<DomainStatus, StatusMeaning>> = {
  Pending: { ...NEITHER, isPending: true },
  'Pending Registration': { ...NEITHER, isPending: true },
  'Pending Transfer': { ...NEITHER, isPending: true },
  Active: { ...NEITHER, isRenewable: true, isSyncable: true },
  Expired: { ...NEITHER, isRenewable: true, isSyncable: true, isExpired: true },
  Grace: { ...NEITHER, isRenewable: true, isSyncable: true, isExpired: true },
  Redemption: { ...NEITHER, isSyncable: true, isExpired: true },
  'Transferred Away': { ...NEITHER, isGone: true },
  Cancelled: { ...NEITHER, isGone: true },
  // Final on this platform and kept: never renewed, synced or offered again.
  Fraud: NEITHER,
};

export const isPending = (status: DomainStatus): boolean => DOMAIN_LIFECYCLE[status].isPending;
export const isGone = (status: DomainStatus): boolean => DOMAIN_LIFECYCLE[status].isGone;
export const isRenewable = (status: DomainStatus): boolean => DOMAIN_LIFECYCLE[status].isRenewable;
export const isSyncable = (status: DomainStatus): boolean => DOMAIN_LIFECYCLE[status].isSyncable;
export const isExpired = (status: DomainStatus): boolean => DOMAIN_LIFECYCLE[status].isExpired;

/** The statuses for which `question` holds, for conditional updates and queries that need a list. */
export function statusesWhere(question: keyof StatusMeaning): readonly DomainStatus[] {
  return Object.freeze(
    (Object.keys(DOMAIN_LIFECYCLE) as DomainStatus[]).filter((status) => DOMAIN_LIFECYCLE[status][question]),
  );
}

/** The status a domain has while its register or transfer order is pending. */
export const PENDING_STATUS_OF = {
  register: 'Pending Registration',
  transfer: 'Pending Transfer',
} as const satisfies Record<'register' | 'transfer', DomainStatus>;
