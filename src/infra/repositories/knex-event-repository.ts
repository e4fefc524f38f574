import type { Knex } from 'knex';
import type { AnyPlatformEvent } from '../../core/common/events';
import type { EventRepository } from '../../core/events/outbox';
import { databaseKind } from '../db/database-kind';
import type { Db } from '../db/db';
import { routingVersion } from './event-routing';

interface EventRow {
  id: string;
  type: string;
  version: number;
  reseller_id: string | null;
  occurred_at: number | string;
  payload: string;
}

const toEvent = (row: EventRow): AnyPlatformEvent =>
  ({
    id: row.id,
    type: row.type,
    version: Number(row.version),
    timestamp: new Date(Number(row.occurred_at)).toISOString(),
    resellerId: row.reseller_id,
    data: JSON.parse(row.payload),
  }) as AnyPlatformEvent;

export class KnexEventRepository implements EventRepository {
  constructor(private readonly db: Db) {}

  async insert(events: readonly AnyPlatformEvent[]): Promise<void> {
    await this.insertStatement(events);
  }

  /** The events' INSERT, built and not sent: a unit of work sends it as its last statement, with its COMMIT. */
  insertStatement(events: readonly AnyPlatformEvent[]): Knex.QueryBuilder {
    return this.db('outbox_events').insert(
      events.map((e) => ({
        id: e.id,
        type: e.type,
        version: e.version,
        reseller_id: e.resellerId,
        occurred_at: Date.parse(e.timestamp),
        payload: JSON.stringify(e.data),
      })),
    );
  }

  async claimUndispatched(options: {
    before: Date;
    now: Date;
    leaseUntil: Date;
    limit: number;
  }): Promise<AnyPlatformEvent[]> {
    const query = this.db<EventRow>('outbox_events')
      .whereNull('dispatched_at')
      .where('occurred_at', '<', options.before.getTime())
      .where((q) => q.whereNull('claim_until').orWhere('claim_until', '<', options.now.getTime()))
      .orderBy('occurred_at')
      .limit(options.limit)
      .select('id', 'type', 'version', 'reseller_id', 'occurred_at', 'payload');
    // SQLite has one writer at a time; on MariaDB, rows another process holds are skipped, not waited for.
    if (databaseKind(this.db) === 'mysql') query.forUpdate().skipLocked();
    const rows = await query;
    if (rows.length === 0) return [];
    await this.db('outbox_events')
      .whereIn(
        'id',
        rows.map((r) => r.id),
      )
      .update({ claim_until: options.leaseUntil.getTime() });
    return rows.map(toEvent);
  }

  async markDispatched(ids: readonly string[], at: Date): Promise<void> {
    if (ids.length === 0) return;
    await this.db('outbox_events')
      .whereIn('id', [...ids])
      .whereNull('dispatched_at')
      .update({ dispatched_at: at.getTime(), claim_until: null });
  }

  async purge(before: Date, limit: number): Promise<number> {
    const ids = (
      await this.db('outbox_events')
        .whereNotNull('dispatched_at')
        .where('dispatched_at', '<', before.getTime())
        .whereNotExists((q) =>
          q
            .select(this.db.raw('1'))
            .from('webhook_deliveries')
            .whereRaw('webhook_deliveries.event_id = outbox_events.id')
            .whereNot('webhook_deliveries.status', 'delivered'),
        )
        .orderBy('dispatched_at')
        .limit(limit)
        .select('id')
    ).map((r: { id: string }) => r.id);
    if (ids.length === 0) return 0;
    await this.db('webhook_deliveries').whereIn('event_id', ids).delete();
    return this.db('outbox_events').whereIn('id', ids).whereNotNull('dispatched_at').delete();
  }

  routingVersion(): Promise<number> {
    return routingVersion(this.db);
  }

  async find(id: string): Promise<AnyPlatformEvent | undefined> {
    const row = await this.db<EventRow>('outbox_events').where({ id }).first();
    return row && toEvent(row);
  }
}
