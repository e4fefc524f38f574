import type { Clock } from '../common/clock';
import type { AnyPlatformEvent, EventBus } from '../common/events';
import { ulid } from '../common/ids';
import type { Logger } from '../common/logger';
import type { TransactionScope, UnitOfWork } from '../common/unit-of-work';
import type { JobCounts } from '../jobs/job-scheduler';
import type { StoredEndpoint, WebhookDelivery } from '../webhooks/webhook';

export interface DispatcherSettings {
  /**
   * An event still undispatched this long after it occurred is taken by any process's recovery
   * pass (its own process died, or its dispatch failed). Longer than a dispatch ever takes.
   */
  readonly recoverAfterMs: number;
  /** Events per dispatch transaction. */
  readonly batchSize: number;
  /**
   * How long the first commit after a quiet spell waits for others to share its dispatch
   * transaction (0: the next turn). Subscribers in this process hear at once regardless.
   */
  readonly gatherMs?: number;
  /** Dispatched events, and delivered deliveries, are purged this long after (0: never). */
  readonly retentionMs: number;
}

/**
 * Whether an endpoint takes an event: one that occurred once it existed (no history), its owner's
 * (or every reseller's, for the operator's), of a type it asked for.
 */
export function endpointWants(endpoint: StoredEndpoint, event: AnyPlatformEvent): boolean {
  if (Date.parse(event.timestamp) < endpoint.createdAt.getTime()) return false;
  if (endpoint.resellerId !== null && endpoint.resellerId !== event.resellerId) return false;
  return endpoint.eventTypes === null || endpoint.eventTypes.includes(event.type);
}

/**
 * Feeds committed events from the outbox to the in-process subscribers and to webhook
 * deliveries, at least once (ADR 15):
 *
 * - right after a unit of work commits, its events go to the subscribers in that turn, and a
 *   dispatch transaction soon after (several commits' events together) creates their webhook
 *   deliveries, derives `credit.low` and marks them dispatched;
 * - an event a crash or a failed dispatch left undispatched is taken by the recovery pass of any
 *   process once `recoverAfterMs` has passed, and dispatched again, to the subscribers too.
 */
/** What dispatch routes by, as of one `routingVersion`. */
interface Routing {
  readonly version: number;
  readonly endpoints: readonly StoredEndpoint[];
  /** Resellers with a low-credit threshold. */
  readonly watched: ReadonlySet<string>;
}

export class OutboxDispatcher {
  private pending: AnyPlatformEvent[] = [];
  private routing: Routing | undefined;
  private flushing: Promise<void> | undefined;
  private readonly deliveriesListeners: Array<() => void> = [];

  constructor(
    private readonly uow: UnitOfWork,
    private readonly bus: EventBus,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: DispatcherSettings,
  ) {}

  /** The unit of work's after-commit call. */
  readonly committed = (events: readonly AnyPlatformEvent[]): void => {
    for (const event of events) this.bus.deliver(event);
    this.pending.push(...events);
    this.flushing ??= this.flush();
  };

  /** Told when new deliveries exist (the delivery worker wakes). */
  onDeliveries(listener: () => void): void {
    this.deliveriesListeners.push(listener);
  }

  /** Waits for the dispatch of every event committed so far in this process (at close). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  /** One recovery pass: events left undispatched anywhere, dispatched again. */
  async recover(): Promise<JobCounts> {
    const now = this.clock.now();
    const claimed = await this.uow.run((repos) =>
      repos.events.claimUndispatched({
        before: new Date(now.getTime() - this.settings.recoverAfterMs),
        now,
        leaseUntil: new Date(now.getTime() + this.settings.recoverAfterMs),
        limit: this.settings.batchSize,
      }),
    );
    if (claimed.length === 0) return { redispatched: 0 };
    this.logger.warn({ events: claimed.length }, 'dispatching events that were committed but not dispatched');
    for (const event of claimed) this.bus.deliver(event);
    await this.dispatch(claimed);
    return { redispatched: claimed.length };
  }

  /** Removes dispatched events and delivered deliveries older than the retention; never an undelivered one. */
  async purge(): Promise<JobCounts> {
    if (this.settings.retentionMs <= 0) return { purged: 0 };
    const before = new Date(this.clock.now().getTime() - this.settings.retentionMs);
    const deliveries = await this.uow.run((repos) => repos.webhooks.purgeDelivered(before, 5000));
    const events = await this.uow.run((repos) => repos.events.purge(before, 5000));
    return { purgedEvents: events, purgedDeliveries: deliveries };
  }

  private async flush(): Promise<void> {
    // Events committed meanwhile share one dispatch transaction.
    const gatherMs = this.settings.gatherMs ?? 0;
    await new Promise((resolve) => (gatherMs > 0 ? setTimeout(resolve, gatherMs) : setImmediate(resolve)));
    try {
      while (this.pending.length > 0) {
        const batch = this.pending.splice(0, this.settings.batchSize);
        try {
          await this.dispatch(batch);
        } catch (error) {
          this.logger.warn(
            { err: error, events: batch.length },
            'dispatching events failed; the recovery pass dispatches them again',
          );
        }
      }
    } finally {
      this.flushing = undefined;
      if (this.pending.length > 0) this.flushing = this.flush();
    }
  }

  /**
   * One transaction: the batch's webhook deliveries, `credit.low` where a balance crossed its
   * threshold, dispatched. Endpoints and thresholds come from this process's copy while the
   * routing version (one read) says it is current.
   */
  private async dispatch(batch: readonly AnyPlatformEvent[]): Promise<void> {
    const now = this.clock.now();
    let delivered = 0;
    await this.uow.run(async (repos) => {
      const routing = await this.currentRouting(repos);
      const deliveries: WebhookDelivery[] = [];
      if (routing.endpoints.length > 0)
        for (const event of batch)
          for (const endpoint of routing.endpoints)
            if (endpointWants(endpoint, event)) deliveries.push(newDelivery(event, endpoint, now));
      await repos.webhooks.insertDeliveries(deliveries);
      delivered = deliveries.length;
      if (routing.watched.size > 0) await lowCredit(repos, batch, routing.watched, now);
      await repos.events.markDispatched(
        batch.map((e) => e.id),
        now,
      );
    });
    if (delivered > 0) for (const listener of this.deliveriesListeners) listener();
  }

  /** Read again in the dispatch's own transaction when the version moved, so the copy matches the version it is kept under. */
  private async currentRouting(repos: TransactionScope): Promise<Routing> {
    const version = await repos.events.routingVersion();
    if (this.routing?.version === version) return this.routing;
    const routing: Routing = {
      version,
      endpoints: await repos.webhooks.enabledEndpoints(),
      watched: new Set(await repos.resellers.withLowCreditThreshold()),
    };
    this.routing = routing;
    return routing;
  }
}

function newDelivery(event: AnyPlatformEvent, endpoint: StoredEndpoint, now: Date): WebhookDelivery {
  return {
    id: ulid(),
    eventId: event.id,
    endpointId: endpoint.id,
    eventType: event.type,
    status: 'pending',
    attempts: 0,
    nextAttemptAt: now,
    lastStatus: null,
    lastError: null,
    lastAttemptAt: null,
    deliveredAt: null,
    createdAt: now,
  };
}

/**
 * `credit.low`: once each time a balance falls below its reseller's threshold, again only after it
 * has risen to the threshold or above. Worked out here rather than in the transaction that moved
 * the money, which then needs no read of the threshold (ADR 15), and from the balance as it is
 * now rather than the one the event carried: one reseller's events can be dispatched out of order
 * (two processes, or the recovery pass), and a late fall must not flag a balance that has risen
 * since. Resellers in id order, so that two processes never wait on each other's rows in a cycle.
 */
async function lowCredit(
  repos: TransactionScope,
  batch: readonly AnyPlatformEvent[],
  watched: ReadonlySet<string>,
  now: Date,
): Promise<void> {
  const changed = new Set<string>();
  for (const event of batch)
    if (event.type === 'credit.changed' && watched.has(event.data.resellerId)) changed.add(event.data.resellerId);
  for (const resellerId of [...changed].sort()) {
    const fell = await repos.resellers.settleCreditLow(resellerId);
    if (fell) repos.outbox.push({ name: 'credit.low', event: { resellerId, ...fell, at: now } });
  }
}
