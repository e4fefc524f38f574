import type { OrderAction } from '../catalogue/catalogue';
import type { EntryKind } from '../credit/ledger';
import type { DomainStatus } from '../domain/domain';
import type { Logger } from './logger';
import type { Minor } from './money';

/** A paid order was accepted: its price is reserved from the reseller's credit and the registrar is being asked. */
export interface OrderPlaced {
  readonly orderId: string;
  readonly resellerId: string;
  readonly action: OrderAction;
  /** ASCII (punycode) name. */
  readonly domain: string;
  readonly period: number;
  /** Integer minor units. */
  readonly price: Minor;
  readonly at: Date;
}

/** The registrar did what the order asked; the debit stands. */
export interface OrderCompleted {
  readonly orderId: string;
  readonly resellerId: string;
  readonly action: OrderAction;
  readonly domain: string;
  /** YYYY-MM-DD, when known. */
  readonly expiryDate: string | null;
  readonly at: Date;
}

/** The order did not happen at the registrar; its price was refunded in full. */
export interface OrderFailed {
  readonly orderId: string;
  readonly resellerId: string;
  readonly action: OrderAction;
  readonly domain: string;
  readonly reason: string;
  /** Integer minor units given back. */
  readonly refunded: Minor;
  readonly at: Date;
}

/** Why a domain's status changed. */
export type StatusChangeCause = 'order' | 'sync' | 'transfer_sync' | 'delete' | 'release';

export interface DomainStatusChanged {
  readonly domainId: string;
  /** ASCII (punycode) name. */
  readonly domain: string;
  readonly resellerId: string;
  /** Null when the platform did not hold the domain before (a new order's domain). */
  readonly from: DomainStatus | null;
  readonly to: DomainStatus;
  readonly cause: StatusChangeCause;
  readonly at: Date;
}

export interface CreditChanged {
  readonly resellerId: string;
  readonly entryId: string;
  /** Integer minor units; negative for a debit. */
  readonly amount: Minor;
  readonly kind: EntryKind;
  readonly orderId: string | null;
  /** The balance right after this entry, in the same transaction. */
  readonly balance: Minor;
  readonly at: Date;
}

/** Every event the module publishes, by name. */
export interface PlatformEvents {
  'order.placed': OrderPlaced;
  'order.completed': OrderCompleted;
  'order.failed': OrderFailed;
  'domain.status_changed': DomainStatusChanged;
  'credit.changed': CreditChanged;
}

export type EventName = keyof PlatformEvents;
export type EventHandler<K extends EventName> = (event: PlatformEvents[K]) => void | Promise<void>;

/**
 * The module's events, published in-process right after the transaction that made the change
 * commits (never for one rolled back). Delivery is at most once: a crash between the commit and
 * the publication loses the event, so a host that must not miss one reconciles from the data too.
 */
export interface EventBus {
  /** Subscribes; returns the function that unsubscribes. */
  on<K extends EventName>(name: K, handler: EventHandler<K>): () => void;
  emit<K extends EventName>(name: K, event: PlatformEvents[K]): void;
}

/**
 * Handlers run synchronously in the publisher's turn, in subscription order. A handler that
 * throws or rejects is logged and never disturbs the publisher or the other handlers; slow work
 * belongs in a queue the handler feeds.
 */
export class InProcessEventBus implements EventBus {
  private readonly handlers = new Map<EventName, Array<EventHandler<EventName>>>();

  constructor(private readonly logger: Logger) {}

  on<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    const list = [...(this.handlers.get(name) ?? []), handler as EventHandler<EventName>];
    this.handlers.set(name, list);
    return () => {
      this.handlers.set(
        name,
        (this.handlers.get(name) ?? []).filter((h) => h !== handler),
      );
    };
  }

  emit<K extends EventName>(name: K, event: PlatformEvents[K]): void {
    const list = this.handlers.get(name);
    if (!list) return;
    for (const handler of list) {
      try {
        const result = handler(event);
        if (result && typeof (result as Promise<void>).then === 'function') {
          (result as Promise<void>).then(undefined, (error: unknown) => this.failed(name, error));
        }
      } catch (error) {
        this.failed(name, error);
      }
    }
  }

  private failed(name: EventName, error: unknown): void {
    this.logger.error({ event: name, err: error }, 'an event handler failed');
  }
}
