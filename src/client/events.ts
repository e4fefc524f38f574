/**
 * The platform's event catalogue: every event's type, version and payload (docs/events.md). The
 * server's core publishes exactly these types (it imports them from here), webhooks deliver them
 * as JSON, and hosts receive them from `module.on`. Amounts are integer minor units; dates are
 * `YYYY-MM-DD`; names are ASCII (punycode).
 */

/** What an order asked for. */
export type EventOrderAction = 'register' | 'renew' | 'transfer';

/** A domain's status as the billing platforms know it (docs/orders.md). */
export type EventDomainStatus =
  | 'Pending'
  | 'Pending Registration'
  | 'Pending Transfer'
  | 'Active'
  | 'Grace'
  | 'Redemption'
  | 'Expired'
  | 'Transferred Away'
  | 'Cancelled'
  | 'Fraud';

/** What moved a reseller's credit. */
export type EventEntryKind = 'top_up' | 'adjustment' | 'order_debit' | 'order_refund';

/** Why a domain's status changed. */
export type StatusChangeCause = 'order' | 'sync' | 'transfer_sync' | 'delete' | 'release';

interface OrderData {
  readonly orderId: string;
  readonly resellerId: string;
  readonly action: EventOrderAction;
  readonly domain: string;
}

/** A paid order was accepted: its price is reserved and the registrar is being asked. */
export interface OrderPlacedData extends OrderData {
  readonly period: number;
  readonly price: number;
}

/** The registrar did what the order asked; the debit stands. */
export interface OrderCompletedData extends OrderData {
  /** When known. */
  readonly expiryDate: string | null;
}

/**
 * `order.failed`: the order did not happen and the caller was told so in the answer to its request.
 * `order.refunded`: an order the reseller was told is under way (or done) was refunded later, by
 * reconciliation, transfer sync or the operator. Either way the price went back in full.
 */
export interface OrderFailedData extends OrderData {
  readonly reason: string;
  readonly refunded: number;
}

/** An order has been pending longer than the platform's limit and waits for the operator. */
export interface OrderNeedsOperatorData extends OrderData {
  readonly pendingDays: number;
  readonly note: string;
}

interface DomainData {
  readonly domainId: string;
  readonly domain: string;
  readonly resellerId: string;
}

export interface DomainStatusChangedData extends DomainData {
  /** Null when the platform did not hold the domain before. */
  readonly from: EventDomainStatus | null;
  readonly to: EventDomainStatus;
  readonly cause: StatusChangeCause;
}

/** `domain.registered`, `domain.renewed`, `domain.transfer_in.completed`: the order that did it. */
export interface DomainOrderCompletedData {
  readonly orderId: string;
  readonly domain: string;
  readonly resellerId: string;
  readonly expiryDate: string | null;
}

export interface DomainTransferFailedData {
  readonly orderId: string;
  readonly domain: string;
  readonly resellerId: string;
  readonly reason: string;
}

/** The domain left the platform's hands or ran out (`domain.transferred_away`, `domain.expired`, `domain.deleted`). */
export interface DomainGoneData extends DomainData {
  readonly from: EventDomainStatus | null;
}

/** Published 30, 7 and 1 days before the expiry date, once each per expiry date. */
export interface DomainExpiringData extends DomainData {
  readonly expiryDate: string;
  readonly daysLeft: 30 | 7 | 1;
}

export interface DomainLockChangedData extends DomainData {
  readonly isLocked: boolean;
}

export interface DomainNameserversChangedData extends DomainData {
  readonly nameservers: readonly string[];
}

export interface CreditChangedData {
  readonly resellerId: string;
  readonly entryId: string;
  /** Negative for a debit. */
  readonly amount: number;
  readonly kind: EventEntryKind;
  readonly orderId: string | null;
  /** The balance right after this entry. */
  readonly balance: number;
}

/** Once each time the balance falls below the reseller's threshold; again only after it has risen to it or above. */
export interface CreditLowData {
  readonly resellerId: string;
  readonly balance: number;
  readonly threshold: number;
}

/** Every event by type. Version 1 of each payload; a breaking change gets a new version and a new section in docs/events.md. */
export interface EventPayloads {
  'order.placed': OrderPlacedData;
  'order.completed': OrderCompletedData;
  'order.failed': OrderFailedData;
  'order.refunded': OrderFailedData;
  'order.needs_operator': OrderNeedsOperatorData;
  'domain.status_changed': DomainStatusChangedData;
  'domain.registered': DomainOrderCompletedData;
  'domain.renewed': DomainOrderCompletedData;
  'domain.transfer_in.completed': DomainOrderCompletedData;
  'domain.transfer_in.failed': DomainTransferFailedData;
  'domain.transferred_away': DomainGoneData;
  'domain.expiring': DomainExpiringData;
  'domain.expired': DomainGoneData;
  'domain.deleted': DomainGoneData;
  'domain.lock.changed': DomainLockChangedData;
  'domain.nameservers.changed': DomainNameserversChangedData;
  'credit.changed': CreditChangedData;
  'credit.low': CreditLowData;
}

export type EventType = keyof EventPayloads;

/** Each event type with the version of its payload that the platform publishes. */
export const EVENT_VERSIONS: { readonly [K in EventType]: number } = Object.freeze({
  'order.placed': 1,
  'order.completed': 1,
  'order.failed': 1,
  'order.refunded': 1,
  'order.needs_operator': 1,
  'domain.status_changed': 1,
  'domain.registered': 1,
  'domain.renewed': 1,
  'domain.transfer_in.completed': 1,
  'domain.transfer_in.failed': 1,
  'domain.transferred_away': 1,
  'domain.expiring': 1,
  'domain.expired': 1,
  'domain.deleted': 1,
  'domain.lock.changed': 1,
  'domain.nameservers.changed': 1,
  'credit.changed': 1,
  'credit.low': 1,
});

export const EVENT_TYPES = Object.freeze(Object.keys(EVENT_VERSIONS) as EventType[]);

/**
 * One event as delivered: the body of a webhook, the second argument of a `module.on` handler.
 * `id` is stable: the same on every retry and replay, so a receiver deduplicates on it.
 */
export interface PlatformEvent<K extends EventType = EventType> {
  readonly id: string;
  readonly type: K;
  readonly version: number;
  /** ISO 8601, when the change committed's unit of work ran. */
  readonly timestamp: string;
  /** The reseller the event is about; null for none. */
  readonly resellerId: string | null;
  readonly data: EventPayloads[K];
}

/** Any event, narrowed by `type` in a `switch`. */
export type AnyPlatformEvent = { [K in EventType]: PlatformEvent<K> }[EventType];
