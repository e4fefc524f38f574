import type { EventType } from '../../client/events';
import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryFilter,
  DeliveryStatus,
  EndpointStatus,
  StoredEndpoint,
  NewDelivery,
  WebhookDelivery,
  WebhookRepository,
} from '../../core/webhooks/webhook';
import { deliveryBody } from '../../core/webhooks/webhook';
import type { Knex } from 'knex';
import { databaseKind } from '../db/database-kind';
import type { Db } from '../db/db';
import { raiseRoutingVersion } from './event-routing';

interface EndpointRow {
  id: string;
  reseller_id: string | null;
  url: string;
  event_types: string | null;
  sealed_secret: string;
  previous_sealed_secret: string | null;
  previous_secret_until: number | string | null;
  status: string;
  disabled_reason: string | null;
  failing_since: number | string | null;
  created_at: number | string;
}

interface DeliveryRow {
  id: string;
  event_id: string;
  endpoint_id: string;
  event_type: string;
  status: string;
  attempts: number;
  next_attempt_at: number | string;
  last_status: number | null;
  last_error: string | null;
  last_attempt_at: number | string | null;
  delivered_at: number | string | null;
  created_at: number | string;
}

const dateOrNull = (value: number | string | null): Date | null => (value === null ? null : new Date(Number(value)));

const toEndpoint = (row: EndpointRow): StoredEndpoint => ({
  id: row.id,
  resellerId: row.reseller_id,
  url: row.url,
  eventTypes: row.event_types ? (JSON.parse(row.event_types) as EventType[]) : null,
  status: row.status as EndpointStatus,
  disabledReason: row.disabled_reason,
  failingSince: dateOrNull(row.failing_since),
  createdAt: new Date(Number(row.created_at)),
  sealedSecret: row.sealed_secret,
  previousSealedSecret: row.previous_sealed_secret,
  previousSecretUntil: dateOrNull(row.previous_secret_until),
});

const toDelivery = (row: DeliveryRow): WebhookDelivery => ({
  id: row.id,
  eventId: row.event_id,
  endpointId: row.endpoint_id,
  eventType: row.event_type as EventType,
  status: row.status as DeliveryStatus,
  attempts: Number(row.attempts),
  nextAttemptAt: new Date(Number(row.next_attempt_at)),
  lastStatus: row.last_status === null ? null : Number(row.last_status),
  lastError: row.last_error,
  lastAttemptAt: dateOrNull(row.last_attempt_at),
  deliveredAt: dateOrNull(row.delivered_at),
  createdAt: new Date(Number(row.created_at)),
});

/** The body a receiver gets: the event as `PlatformEvent` (src/client/events.ts), built from its row. */
function eventBody(row: {
  event_id: string;
  type: string;
  version: number;
  reseller_id: string | null;
  occurred_at: number | string;
  payload: string;
}): string {
  return deliveryBody(
    { id: row.event_id, type: row.type, version: Number(row.version), occurredAt: Number(row.occurred_at) },
    row.reseller_id,
    row.payload,
  );
}

/**
 * `status = ?` in a statement that picks its rows by id. On SQLite it is written `+status`, which
 * keeps the planner on the primary key: without statistics it walks the status index instead,
 * every pending (or delivered) row for a handful of ids (SQLite's documented way to disqualify a
 * term from an index). MariaDB chooses the primary key by itself.
 */
function whereStatus(db: Db, query: Knex.QueryBuilder, status: DeliveryStatus): Knex.QueryBuilder {
  return databaseKind(db) === 'sqlite' ? query.whereRaw('+?? = ?', ['status', status]) : query.where({ status });
}

export class KnexWebhookRepository implements WebhookRepository {
  constructor(private readonly db: Db) {}

  async insertEndpoint(e: StoredEndpoint): Promise<void> {
    await this.db('webhook_endpoints').insert({
      id: e.id,
      reseller_id: e.resellerId,
      url: e.url,
      event_types: e.eventTypes ? JSON.stringify(e.eventTypes) : null,
      sealed_secret: e.sealedSecret,
      previous_sealed_secret: e.previousSealedSecret,
      previous_secret_until: e.previousSecretUntil?.getTime() ?? null,
      status: e.status,
      disabled_reason: e.disabledReason,
      failing_since: e.failingSince?.getTime() ?? null,
      created_at: e.createdAt.getTime(),
    });
    await raiseRoutingVersion(this.db);
  }

  async findEndpoint(id: string): Promise<StoredEndpoint | undefined> {
    const row = await this.db<EndpointRow>('webhook_endpoints').where({ id }).first();
    return row && toEndpoint(row);
  }

  async listEndpoints(resellerId?: string | null): Promise<StoredEndpoint[]> {
    const query = this.db<EndpointRow>('webhook_endpoints').orderBy('created_at').orderBy('id');
    if (resellerId === null) query.whereNull('reseller_id');
    else if (resellerId !== undefined) query.where({ reseller_id: resellerId });
    return (await query).map(toEndpoint);
  }

  async enabledEndpoints(): Promise<StoredEndpoint[]> {
    return (await this.db<EndpointRow>('webhook_endpoints').where({ status: 'enabled' })).map(toEndpoint);
  }

  async rotateSecret(id: string, sealedSecret: string, previous: { sealed: string; until: Date }): Promise<void> {
    await this.db('webhook_endpoints').where({ id }).update({
      sealed_secret: sealedSecret,
      previous_sealed_secret: previous.sealed,
      previous_secret_until: previous.until.getTime(),
    });
    // A dispatch signs the deliveries it hands to its own worker with the endpoint as its routing copy holds it.
    await raiseRoutingVersion(this.db);
  }

  async disable(id: string, reason: string): Promise<boolean> {
    const changed = await this.db('webhook_endpoints')
      .where({ id, status: 'enabled' })
      .update({ status: 'disabled', disabled_reason: reason.slice(0, 255) });
    if (changed === 0) return false;
    await raiseRoutingVersion(this.db);
    await this.db('webhook_deliveries')
      .where({ endpoint_id: id, status: 'pending' })
      .update({ status: 'dead', last_error: `endpoint disabled: ${reason}`.slice(0, 500) });
    return true;
  }

  async enable(id: string): Promise<void> {
    await this.db('webhook_endpoints')
      .where({ id })
      .update({ status: 'enabled', disabled_reason: null, failing_since: null });
    await raiseRoutingVersion(this.db);
  }

  async setFailingSince(id: string, since: Date | null): Promise<void> {
    const query = this.db('webhook_endpoints').where({ id });
    // Only the first failure of a run starts the clock.
    if (since !== null) query.whereNull('failing_since');
    else query.whereNotNull('failing_since');
    await query.update({ failing_since: since?.getTime() ?? null });
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    await this.db('webhook_deliveries').where({ endpoint_id: id }).delete();
    const deleted = await this.db('webhook_endpoints').where({ id }).delete();
    if (deleted > 0) await raiseRoutingVersion(this.db);
    return deleted > 0;
  }

  async insertDeliveries(deliveries: readonly NewDelivery[]): Promise<void> {
    if (deliveries.length === 0) return;
    await this.db('webhook_deliveries')
      .insert(
        deliveries.map((d) => ({
          id: d.id,
          event_id: d.eventId,
          endpoint_id: d.endpointId,
          event_type: d.eventType,
          status: d.status,
          attempts: d.attempts,
          next_attempt_at: d.nextAttemptAt.getTime(),
          claim_token: d.claim?.token ?? null,
          claim_until: d.claim?.until.getTime() ?? null,
          created_at: d.createdAt.getTime(),
        })),
      )
      .onConflict(['event_id', 'endpoint_id'])
      .ignore();
  }

  async claimDue(options: {
    now: Date;
    leaseUntil: Date;
    token: string;
    limit: number;
    excludeEndpoints: readonly string[];
  }): Promise<string[]> {
    const now = options.now.getTime();
    // The endpoints claimed for are named by id, read first, not by a subquery: MariaDB runs
    // `endpoint_id IN (SELECT …)` as a join that reads, sorts and (FOR UPDATE) locks every due
    // delivery before its LIMIT, so each claim cost the whole backlog and held all of it from
    // other processes until it committed. With ids it walks the (status, next_attempt_at) index
    // and stops at the LIMIT.
    const excluded = new Set(options.excludeEndpoints);
    const endpoints = (await this.db('webhook_endpoints').where({ status: 'enabled' }).select('id'))
      .map((r: { id: string }) => r.id)
      .filter((id) => !excluded.has(id));
    if (endpoints.length === 0) return [];
    const query = this.db<DeliveryRow>('webhook_deliveries')
      .where({ status: 'pending' })
      .where('next_attempt_at', '<=', now)
      .where((q) => q.whereNull('claim_until').orWhere('claim_until', '<', now))
      .whereIn('endpoint_id', endpoints)
      .orderBy('next_attempt_at')
      .limit(options.limit)
      .select('id');
    // MariaDB ≥ 10.6: a row another process is claiming is skipped, never sent twice nor waited for.
    if (databaseKind(this.db) === 'mysql') query.forUpdate().skipLocked();
    const ids = (await query).map((r: { id: string }) => r.id);
    if (ids.length === 0) return [];
    // Conditional as well: where rows are not locked (SQLite), a row claimed since the read stays its claimer's.
    const claimed = await whereStatus(this.db, this.db('webhook_deliveries').whereIn('id', ids), 'pending')
      .where((q) => q.whereNull('claim_until').orWhere('claim_until', '<', now))
      .update({ claim_token: options.token, claim_until: options.leaseUntil.getTime() });
    if (claimed === ids.length) return ids;
    return (
      await this.db('webhook_deliveries').whereIn('id', ids).where({ claim_token: options.token }).select('id')
    ).map((r: { id: string }) => r.id);
  }

  async releaseClaims(ids: readonly string[], token: string): Promise<void> {
    await this.db('webhook_deliveries')
      .whereIn('id', [...ids])
      .where({ claim_token: token })
      .update({ claim_token: null, claim_until: null });
  }

  async claimed(ids: readonly string[], token: string): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    const rows = await this.db('webhook_deliveries as d')
      .join('webhook_endpoints as w', 'w.id', 'd.endpoint_id')
      .join('outbox_events as e', 'e.id', 'd.event_id')
      .whereIn('d.id', [...ids])
      .where('d.claim_token', token)
      .select(
        'd.id as delivery_id',
        'd.attempts as attempts',
        'd.created_at as delivery_created_at',
        'd.event_id as event_id',
        'e.type as type',
        'e.version as version',
        'e.reseller_id as event_reseller_id',
        'e.occurred_at as occurred_at',
        'e.payload as payload',
        'w.*',
      );
    return rows.map(
      (row: EndpointRow & Record<string, unknown>): ClaimedDelivery => ({
        id: String(row.delivery_id),
        claimToken: token,
        attempts: Number(row.attempts),
        endpoint: toEndpoint(row),
        eventId: String(row.event_id),
        body: eventBody({
          event_id: String(row.event_id),
          type: String(row.type),
          version: Number(row.version),
          reseller_id: (row.event_reseller_id as string | null) ?? null,
          occurred_at: row.occurred_at as number,
          payload: String(row.payload),
        }),
        createdAt: new Date(Number(row.delivery_created_at)),
      }),
    );
  }

  async recordDelivered(
    attempts: ReadonlyArray<{ id: string; token: string; record: AttemptRecord }>,
  ): Promise<number> {
    let recorded = 0;
    // One statement per answer status (usually one for a whole batch), at the time the last of
    // its attempts finished: attempts recorded together finished within moments of each other.
    const groups = new Map<number | null, { at: number; attempts: Array<{ id: string; token: string }> }>();
    for (const a of attempts) {
      const group = groups.get(a.record.status) ?? { at: 0, attempts: [] };
      group.at = Math.max(group.at, a.record.at.getTime());
      group.attempts.push(a);
      groups.set(a.record.status, group);
    }
    for (const [status, { at, attempts: group }] of groups) {
      const rows = this.db('webhook_deliveries').whereIn(
        'id',
        group.map((a) => a.id),
      );
      recorded += await whereStatus(this.db, rows, 'pending')
        // Tokens are random per claim: a row claimed by another since carries a token not in this list.
        .whereIn('claim_token', [...new Set(group.map((a) => a.token))])
        .update({
          status: 'delivered',
          attempts: this.db.raw('attempts + 1'),
          last_attempt_at: at,
          delivered_at: at,
          last_status: status,
          last_error: null,
          claim_token: null,
          claim_until: null,
        });
    }
    return recorded;
  }

  async recordAttempt(id: string, token: string, record: AttemptRecord): Promise<boolean> {
    const common = {
      attempts: this.db.raw('attempts + 1'),
      last_attempt_at: record.at.getTime(),
      last_status: record.status,
      claim_token: null,
      claim_until: null,
    };
    const change =
      record.kind === 'delivered'
        ? { ...common, status: 'delivered', delivered_at: record.at.getTime(), last_error: null }
        : record.kind === 'retry'
          ? { ...common, next_attempt_at: record.nextAttemptAt.getTime(), last_error: record.error.slice(0, 500) }
          : { ...common, status: 'dead', last_error: record.error.slice(0, 500) };
    const changed = await this.db('webhook_deliveries')
      .where({ id, claim_token: token, status: 'pending' })
      .update(change);
    return changed > 0;
  }

  async findDelivery(id: string): Promise<WebhookDelivery | undefined> {
    const row = await this.db<DeliveryRow>('webhook_deliveries').where({ id }).first();
    return row && toDelivery(row);
  }

  async listDeliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    const query = this.db<DeliveryRow>('webhook_deliveries as d')
      .orderBy('d.created_at', 'desc')
      .orderBy('d.id', 'desc')
      .limit(filter.limit ?? 100)
      .select('d.*');
    if (filter.endpointId) query.where('d.endpoint_id', filter.endpointId);
    if (filter.status) query.where('d.status', filter.status);
    if (filter.resellerId)
      query.join('webhook_endpoints as w', 'w.id', 'd.endpoint_id').where('w.reseller_id', filter.resellerId);
    return (await query).map(toDelivery);
  }

  async replay(id: string, at: Date): Promise<boolean> {
    const changed = await this.db('webhook_deliveries')
      .where({ id, status: 'dead' })
      .update({ status: 'pending', attempts: 0, next_attempt_at: at.getTime(), claim_token: null, claim_until: null });
    return changed > 0;
  }

  async purgeDelivered(before: Date, limit: number): Promise<number> {
    const ids = (
      await this.db('webhook_deliveries')
        .where({ status: 'delivered' })
        .where('delivered_at', '<', before.getTime())
        .limit(limit)
        .select('id')
    ).map((r: { id: string }) => r.id);
    if (ids.length === 0) return 0;
    return whereStatus(this.db, this.db('webhook_deliveries').whereIn('id', ids), 'delivered').delete();
  }
}
