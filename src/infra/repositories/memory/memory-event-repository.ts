import type { AnyPlatformEvent } from '../../../core/common/events';
import type { EventRepository } from '../../../core/events/outbox';
import { assertUnique, byText, copy, type TablesRef } from './memory-tables';

const occurredAt = (event: AnyPlatformEvent) => Date.parse(event.timestamp);

/**
 * The twin of KnexEventRepository: `outbox_events`. `purge` keeps an event while one of its webhook
 * deliveries is undelivered (pending or dead), and removes its delivered ones with it.
 */
export class MemoryEventRepository implements EventRepository {
  constructor(private readonly ref: TablesRef) {}

  private get rows() {
    return this.ref.tables.events;
  }

  async insert(events: readonly AnyPlatformEvent[]): Promise<void> {
    for (const event of events) assertUnique(this.rows.has(event.id), `outbox_events.id ${event.id}`);
    // Stored as its row keeps it: the timestamp to the millisecond, the data as JSON.
    for (const event of events)
      this.rows.set(event.id, {
        event: {
          ...event,
          timestamp: new Date(occurredAt(event)).toISOString(),
          data: JSON.parse(JSON.stringify(event.data)),
        } as AnyPlatformEvent,
        claimUntil: null,
        dispatchedAt: null,
      });
  }

  async claimUndispatched(options: {
    readonly before: Date;
    readonly now: Date;
    readonly leaseUntil: Date;
    readonly limit: number;
  }): Promise<AnyPlatformEvent[]> {
    const claimed = [...this.rows.values()]
      .filter(
        (row) =>
          row.dispatchedAt === null &&
          occurredAt(row.event) < options.before.getTime() &&
          (row.claimUntil === null || row.claimUntil < options.now.getTime()),
      )
      .sort((a, b) => occurredAt(a.event) - occurredAt(b.event) || byText(a.event.id, b.event.id))
      .slice(0, options.limit);
    for (const row of claimed) row.claimUntil = options.leaseUntil.getTime();
    return copy(claimed.map((row) => row.event));
  }

  async markDispatched(ids: readonly string[], at: Date): Promise<void> {
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row && row.dispatchedAt === null) {
        row.dispatchedAt = at.getTime();
        row.claimUntil = null;
      }
    }
  }

  async purge(before: Date, limit: number): Promise<number> {
    const deliveries = this.ref.tables.webhookDeliveries;
    const undelivered = new Set([...deliveries.values()].filter((d) => d.status !== 'delivered').map((d) => d.eventId));
    const gone = [...this.rows.values()]
      .filter(
        (row) => row.dispatchedAt !== null && row.dispatchedAt < before.getTime() && !undelivered.has(row.event.id),
      )
      .sort((a, b) => (a.dispatchedAt ?? 0) - (b.dispatchedAt ?? 0))
      .slice(0, limit);
    const ids = new Set(gone.map((row) => row.event.id));
    for (const [id, d] of deliveries) if (ids.has(d.eventId)) deliveries.delete(id);
    for (const id of ids) this.rows.delete(id);
    return gone.length;
  }

  async find(id: string): Promise<AnyPlatformEvent | undefined> {
    return copy(this.rows.get(id)?.event);
  }

  async routingVersion(): Promise<number> {
    return this.ref.tables.routingVersion;
  }
}
