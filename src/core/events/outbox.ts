import { EVENT_VERSIONS } from '../../client/events';
import type { AnyPlatformEvent, EventName, EventPayloads, PlatformEvents } from '../common/events';
import { orderedUlid } from '../common/ids';

/** One event as a service records it: its name and its payload with the time of the change. */
export type OutboxEntry = { [K in EventName]: { readonly name: K; readonly event: PlatformEvents[K] } }[EventName];

/**
 * A unit of work's outbox (`repos.outbox`): what is pushed is written with the transaction's own
 * changes, in one statement just before it commits, and reaches subscribers and webhooks only
 * after that commit. A transaction rolled back (or retried by the database) records nothing.
 */
export interface Outbox {
  push(entry: OutboxEntry): void;
}

/**
 * Event ids: `evt_` and a ULID, so they sort in the order this process made them (also within one
 * millisecond) and say what they are in a receiver's logs.
 */
export const newEventId = (): string => `evt_${orderedUlid()}`;

/**
 * Events that follow from another one, recorded beside it in the same transaction, so that every
 * path that completes an order or moves a domain (the request, reconciliation, transfer sync,
 * domain sync, the operator) publishes them without saying so itself.
 */
function derived(entry: OutboxEntry): OutboxEntry[] {
  const { at } = entry.event;
  switch (entry.name) {
    case 'order.completed': {
      const { orderId, domain, resellerId, expiryDate, action } = entry.event;
      const name =
        action === 'register'
          ? 'domain.registered'
          : action === 'renew'
            ? 'domain.renewed'
            : 'domain.transfer_in.completed';
      return [{ name, event: { orderId, domain, resellerId, expiryDate, at } }];
    }
    case 'order.failed':
    case 'order.refunded': {
      const { orderId, domain, resellerId, reason, action } = entry.event;
      return action === 'transfer'
        ? [{ name: 'domain.transfer_in.failed', event: { orderId, domain, resellerId, reason, at } }]
        : [];
    }
    case 'domain.status_changed': {
      const { domainId, domain, resellerId, from, to, cause } = entry.event;
      const gone = { domainId, domain, resellerId, from, at };
      if (cause === 'delete') return [{ name: 'domain.deleted', event: gone }];
      if (to === 'Transferred Away') return [{ name: 'domain.transferred_away', event: gone }];
      if (to === 'Expired') return [{ name: 'domain.expired', event: gone }];
      return [];
    }
    default:
      return [];
  }
}

/** The event as it is stored and delivered: its id, version and ISO timestamp around the payload. */
export function toPlatformEvent(entry: OutboxEntry, id = newEventId()): AnyPlatformEvent {
  const { at, ...data } = entry.event;
  return {
    id,
    type: entry.name,
    version: EVENT_VERSIONS[entry.name],
    timestamp: at.toISOString(),
    resellerId: 'resellerId' in data ? (data.resellerId as string) : null,
    data: data as EventPayloads[typeof entry.name],
  } as AnyPlatformEvent;
}

/** The outbox of one attempt at a unit of work: the events it recorded, with the ones that follow from them. */
export class RecordedEvents implements Outbox {
  readonly events: AnyPlatformEvent[] = [];

  push(entry: OutboxEntry): void {
    this.events.push(toPlatformEvent(entry));
    for (const next of derived(entry)) this.events.push(toPlatformEvent(next));
  }
}

/** The stored outbox: written by units of work, read by the dispatcher (ADR 15). */
export interface EventRepository {
  /** The events of one transaction, in one statement. */
  insert(events: readonly AnyPlatformEvent[]): Promise<void>;
  /**
   * Undispatched events that occurred before `before` and are not leased, oldest first, leased
   * to the caller until `leaseUntil` (row locks skipped on MariaDB, so processes never wait on
   * each other). Inside a transaction.
   */
  claimUndispatched(options: {
    readonly before: Date;
    readonly now: Date;
    readonly leaseUntil: Date;
    readonly limit: number;
  }): Promise<AnyPlatformEvent[]>;
  markDispatched(ids: readonly string[], at: Date): Promise<void>;
  /**
   * Removes events dispatched before `before` none of whose webhook deliveries is still
   * undelivered (pending or dead); answers how many.
   */
  purge(before: Date, limit: number): Promise<number>;
  find(id: string): Promise<AnyPlatformEvent | undefined>;
  /**
   * The version of what dispatch routes by (enabled endpoints, low-credit thresholds), raised in
   * the transaction of each change to them: a dispatcher's cached copy is current while it matches.
   */
  routingVersion(): Promise<number>;
}
