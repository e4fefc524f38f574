import type { AnyPlatformEvent, EventPayloads, EventType, PlatformEvent } from '../../client/events';
import type { Logger } from './logger';

export type { AnyPlatformEvent, EventPayloads, PlatformEvent, StatusChangeCause } from '../../client/events';

/** Every event the module publishes, by name (the catalogue in src/client/events.ts, docs/events.md). */
export type EventName = EventType;

/**
 * What a service records in its unit of work's outbox: the event's payload and when the change
 * happened (the event's timestamp). The outbox gives it its id and version.
 */
export type PlatformEvents = { readonly [K in EventName]: EventPayloads[K] & { readonly at: Date } };

export type OrderPlaced = PlatformEvents['order.placed'];
export type OrderCompleted = PlatformEvents['order.completed'];
export type OrderFailed = PlatformEvents['order.failed'];
export type DomainStatusChanged = PlatformEvents['domain.status_changed'];
export type CreditChanged = PlatformEvents['credit.changed'];

/** A subscriber: the payload, and the whole event (its stable `id` for deduplication, its type, version and time). */
export type EventHandler<K extends EventName> = (
  data: EventPayloads[K],
  event: PlatformEvent<K>,
) => void | Promise<void>;

/**
 * The module's in-process subscribers (ADR 15). Events reach it only from the outbox after the
 * transaction that recorded them committed, at least once: a subscriber may see an event again
 * after a crash and deduplicates on `event.id`. Services never hold it: they publish by recording
 * events in their unit of work (`repos.outbox`).
 */
export interface EventBus {
  /** Subscribes; returns the function that unsubscribes. */
  on<K extends EventName>(name: K, handler: EventHandler<K>): () => void;
  /** Hands a committed event to the subscribers of its type (the outbox dispatcher's call). */
  deliver(event: AnyPlatformEvent): void;
}

/**
 * Handlers run synchronously in the dispatcher's turn, in subscription order. A handler that
 * throws or rejects is logged and never disturbs the others; slow work belongs in a queue the
 * handler feeds.
 */
export class InProcessEventBus implements EventBus {
  private readonly handlers = new Map<EventName, Array<EventHandler<EventName>>>();

  constructor(private readonly logger: Logger) {}

  on<K extends EventName>(name: K, handler: EventHandler<K>): () => void {
    const list = [...(this.handlers.get(name) ?? []), handler as unknown as EventHandler<EventName>];
    this.handlers.set(name, list);
    return () => {
      this.handlers.set(
        name,
        (this.handlers.get(name) ?? []).filter((h) => h !== (handler as unknown)),
      );
    };
  }

  deliver(event: AnyPlatformEvent): void {
    const list = this.handlers.get(event.type);
    if (!list) return;
    for (const handler of list) {
      try {
        const result = handler(event.data, event);
        if (result && typeof (result as Promise<void>).then === 'function') {
          (result as Promise<void>).then(undefined, (error: unknown) => this.failed(event, error));
        }
      } catch (error) {
        this.failed(event, error);
      }
    }
  }

  private failed(event: AnyPlatformEvent, error: unknown): void {
    this.logger.error({ event: event.type, eventId: event.id, err: error }, 'an event handler failed');
  }
}
