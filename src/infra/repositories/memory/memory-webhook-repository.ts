import type {
  AttemptRecord,
  ClaimedDelivery,
  DeliveryFilter,
  StoredEndpoint,
  NewDelivery,
  WebhookDelivery,
  WebhookRepository,
} from '../../../core/webhooks/webhook';
import { assertUnique, byText, copy, type DeliveryRow, folded, type TablesRef } from './memory-tables';

/** The columns' lengths (migrations 20261126150200 and 20261126150300) that the knex repository cuts to. */
const DISABLED_REASON_LENGTH = 255;
const LAST_ERROR_LENGTH = 500;
const URL_LENGTH = 2048;

/** MariaDB's refusal of a value longer than its column (strict mode); SQLite keeps it whole. */
class DataTooLong extends Error {
  readonly code = 'ER_DATA_TOO_LONG';
  readonly errno = 1406;
  constructor(what: string) {
    super(`memory twin: data too long for ${what}`);
  }
}

const pair = (eventId: string, endpointId: string) => `${folded(eventId)}\u0000${folded(endpointId)}`;

/** A delivery as its row answers it, without the claim. */
function toDelivery({ claimToken: _token, claimUntil: _until, ...delivery }: DeliveryRow): WebhookDelivery {
  return copy(delivery);
}

/**
 * The twin of KnexWebhookRepository: `webhook_endpoints` and `webhook_deliveries`. No foreign key
 * ties a delivery to its endpoint or event (none is declared); `claimed` joins them, so a delivery
 * whose endpoint or event is gone is not answered. Changes to what the outbox dispatcher routes by
 * raise the routing version, as `event_routing` is raised in the same transaction.
 */
export class MemoryWebhookRepository implements WebhookRepository {
  constructor(private readonly ref: TablesRef) {}

  private get endpoints() {
    return this.ref.tables.webhookEndpoints;
  }

  private get deliveries() {
    return this.ref.tables.webhookDeliveries;
  }

  private raiseRoutingVersion(): void {
    this.ref.tables.routingVersion++;
  }

  async insertEndpoint(e: StoredEndpoint): Promise<void> {
    assertUnique(this.endpoints.has(e.id), `webhook_endpoints.id ${e.id}`);
    if (e.url.length > URL_LENGTH) throw new DataTooLong('webhook_endpoints.url');
    this.endpoints.set(e.id, copy(e));
    this.raiseRoutingVersion();
  }

  async findEndpoint(id: string): Promise<StoredEndpoint | undefined> {
    return copy(this.endpoints.get(id));
  }

  async listEndpoints(resellerId?: string | null): Promise<StoredEndpoint[]> {
    return copy(
      [...this.endpoints.values()]
        .filter((e) => resellerId === undefined || e.resellerId === resellerId)
        .sort((a, b) => a.createdAt.getTime() - b.createdAt.getTime() || byText(a.id, b.id)),
    );
  }

  async enabledEndpoints(): Promise<StoredEndpoint[]> {
    return copy([...this.endpoints.values()].filter((e) => e.status === 'enabled'));
  }

  async rotateSecret(id: string, sealedSecret: string, previous: { sealed: string; until: Date }): Promise<void> {
    const e = this.endpoints.get(id);
    if (e)
      this.endpoints.set(id, {
        ...e,
        sealedSecret,
        previousSealedSecret: previous.sealed,
        previousSecretUntil: new Date(previous.until.getTime()),
      });
    this.raiseRoutingVersion();
  }

  async disable(id: string, reason: string): Promise<boolean> {
    const e = this.endpoints.get(id);
    if (e?.status !== 'enabled') return false;
    this.endpoints.set(id, { ...e, status: 'disabled', disabledReason: reason.slice(0, DISABLED_REASON_LENGTH) });
    this.raiseRoutingVersion();
    for (const [key, d] of this.deliveries)
      if (d.endpointId === id && d.status === 'pending')
        this.deliveries.set(key, {
          ...d,
          status: 'dead',
          lastError: `endpoint disabled: ${reason}`.slice(0, LAST_ERROR_LENGTH),
        });
    return true;
  }

  async enable(id: string): Promise<void> {
    const e = this.endpoints.get(id);
    if (e) this.endpoints.set(id, { ...e, status: 'enabled', disabledReason: null, failingSince: null });
    // Raised whether or not the endpoint exists, as the knex repository raises it.
    this.raiseRoutingVersion();
  }

  async setFailingSince(id: string, since: Date | null): Promise<void> {
    const e = this.endpoints.get(id);
    // Only the first failure of a run starts the clock.
    if (e && (since === null) === (e.failingSince !== null))
      this.endpoints.set(id, { ...e, failingSince: since && new Date(since.getTime()) });
  }

  async deleteEndpoint(id: string): Promise<boolean> {
    for (const [key, d] of this.deliveries) if (d.endpointId === id) this.deliveries.delete(key);
    if (!this.endpoints.delete(id)) return false;
    this.raiseRoutingVersion();
    return true;
  }

  async insertDeliveries(deliveries: readonly NewDelivery[]): Promise<void> {
    const pairs = new Set([...this.deliveries.values()].map((d) => pair(d.eventId, d.endpointId)));
    for (const d of deliveries) {
      // A pair already there is left as it is (INSERT IGNORE, ON CONFLICT DO NOTHING). A delivery id
      // already taken by another pair: SQLite refuses it, MariaDB ignores it; the twin refuses it.
      if (pairs.has(pair(d.eventId, d.endpointId))) continue;
      assertUnique(this.deliveries.has(d.id), `webhook_deliveries.id ${d.id}`);
      pairs.add(pair(d.eventId, d.endpointId));
      // Only the columns the knex repository writes; the rest start empty.
      this.deliveries.set(d.id, {
        id: d.id,
        eventId: d.eventId,
        endpointId: d.endpointId,
        eventType: d.eventType,
        status: d.status,
        attempts: d.attempts,
        nextAttemptAt: new Date(d.nextAttemptAt.getTime()),
        lastStatus: null,
        lastError: null,
        lastAttemptAt: null,
        deliveredAt: null,
        createdAt: new Date(d.createdAt.getTime()),
        claimToken: d.claim?.token ?? null,
        claimUntil: d.claim?.until.getTime() ?? null,
      });
    }
  }

  async claimDue(options: {
    readonly now: Date;
    readonly leaseUntil: Date;
    readonly token: string;
    readonly limit: number;
    readonly excludeEndpoints: readonly string[];
  }): Promise<string[]> {
    const now = options.now.getTime();
    const due = [...this.deliveries.values()]
      .filter(
        (d) =>
          d.status === 'pending' &&
          d.nextAttemptAt.getTime() <= now &&
          (d.claimUntil === null || d.claimUntil < now) &&
          !options.excludeEndpoints.includes(d.endpointId) &&
          this.endpoints.get(d.endpointId)?.status === 'enabled',
      )
      .sort((a, b) => a.nextAttemptAt.getTime() - b.nextAttemptAt.getTime() || byText(a.id, b.id))
      .slice(0, Math.max(0, options.limit));
    for (const d of due)
      this.deliveries.set(d.id, { ...d, claimToken: options.token, claimUntil: options.leaseUntil.getTime() });
    return due.map((d) => d.id);
  }

  async releaseClaims(ids: readonly string[], token: string): Promise<void> {
    for (const id of ids) {
      const d = this.deliveries.get(id);
      if (d?.claimToken === token) this.deliveries.set(id, { ...d, claimToken: null, claimUntil: null });
    }
  }

  async claimed(ids: readonly string[], token: string): Promise<ClaimedDelivery[]> {
    const answer: ClaimedDelivery[] = [];
    for (const id of new Set(ids)) {
      const d = this.deliveries.get(id);
      if (d?.claimToken !== token) continue;
      const endpoint = this.endpoints.get(d.endpointId);
      const event = this.ref.tables.events.get(d.eventId)?.event;
      if (!endpoint || !event) continue;
      const { id: eventId, type, version, timestamp, resellerId, data } = event;
      answer.push({
        id: d.id,
        claimToken: token,
        attempts: d.attempts,
        endpoint: copy(endpoint),
        eventId: d.eventId,
        // As the knex repository builds it from the event's row: the event's fields in this order.
        body: JSON.stringify({ id: eventId, type, version, timestamp, resellerId, data }),
        createdAt: new Date(d.createdAt.getTime()),
      });
    }
    return answer;
  }

  async recordDelivered(
    attempts: ReadonlyArray<{ readonly id: string; readonly token: string; readonly record: AttemptRecord }>,
  ): Promise<number> {
    // As the knex repository's one statement per answer status: every attempt of a status is
    // recorded at the time the last of them finished, under any of their claims.
    const groups = new Map<number | null, { at: number; ids: Set<string>; tokens: Set<string> }>();
    for (const a of attempts) {
      const group = groups.get(a.record.status) ?? { at: 0, ids: new Set(), tokens: new Set() };
      group.at = Math.max(group.at, a.record.at.getTime());
      group.ids.add(a.id);
      group.tokens.add(a.token);
      groups.set(a.record.status, group);
    }
    let recorded = 0;
    for (const [status, { at, ids, tokens }] of groups)
      for (const id of ids) {
        const d = this.deliveries.get(id);
        if (d?.status !== 'pending' || d.claimToken === null || !tokens.has(d.claimToken)) continue;
        this.deliveries.set(id, {
          ...d,
          status: 'delivered',
          attempts: d.attempts + 1,
          lastAttemptAt: new Date(at),
          deliveredAt: new Date(at),
          lastStatus: status,
          lastError: null,
          claimToken: null,
          claimUntil: null,
        });
        recorded++;
      }
    return recorded;
  }

  async recordAttempt(id: string, token: string, record: AttemptRecord): Promise<boolean> {
    const d = this.deliveries.get(id);
    if (!d || d.claimToken !== token || d.status !== 'pending') return false;
    const common = {
      ...d,
      attempts: d.attempts + 1,
      lastAttemptAt: new Date(record.at.getTime()),
      lastStatus: record.status,
      claimToken: null,
      claimUntil: null,
    };
    this.deliveries.set(
      id,
      record.kind === 'delivered'
        ? { ...common, status: 'delivered', deliveredAt: new Date(record.at.getTime()), lastError: null }
        : record.kind === 'retry'
          ? {
              ...common,
              nextAttemptAt: new Date(record.nextAttemptAt.getTime()),
              lastError: record.error.slice(0, LAST_ERROR_LENGTH),
            }
          : { ...common, status: 'dead', lastError: record.error.slice(0, LAST_ERROR_LENGTH) },
    );
    return true;
  }

  async findDelivery(id: string): Promise<WebhookDelivery | undefined> {
    const d = this.deliveries.get(id);
    return d && toDelivery(d);
  }

  async listDeliveries(filter: DeliveryFilter): Promise<WebhookDelivery[]> {
    return [...this.deliveries.values()]
      .filter(
        (d) =>
          (!filter.endpointId || d.endpointId === filter.endpointId) &&
          (!filter.status || d.status === filter.status) &&
          (!filter.resellerId || this.endpoints.get(d.endpointId)?.resellerId === filter.resellerId),
      )
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || byText(b.id, a.id))
      .slice(0, Math.max(0, filter.limit ?? 100))
      .map(toDelivery);
  }

  async replay(id: string, at: Date): Promise<boolean> {
    const d = this.deliveries.get(id);
    if (d?.status !== 'dead') return false;
    this.deliveries.set(id, {
      ...d,
      status: 'pending',
      attempts: 0,
      nextAttemptAt: new Date(at.getTime()),
      claimToken: null,
      claimUntil: null,
    });
    return true;
  }

  async purgeDelivered(before: Date, limit: number): Promise<number> {
    const gone = [...this.deliveries.values()]
      .filter((d) => d.status === 'delivered' && d.deliveredAt !== null && d.deliveredAt.getTime() < before.getTime())
      .slice(0, Math.max(0, limit));
    for (const d of gone) this.deliveries.delete(d.id);
    return gone.length;
  }
}
