import type { Clock } from '../common/clock';
import type { AnyPlatformEvent, EventBus } from '../common/events';
import { orderedUlid, ulid } from '../common/ids';
import type { Logger } from '../common/logger';
import type { TransactionScope, UnitOfWork } from '../common/unit-of-work';
import type { JobCounts } from '../jobs/job-scheduler';
import { type ClaimedDelivery, deliveryBody, type NewDelivery, type StoredEndpoint } from '../webhooks/webhook';

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
 * This process's webhook delivery worker, as the dispatch hands it the deliveries it creates
 * (WebhookDeliveryWorker): those it has room for are claimed for it in the same INSERT and given
 * to it once committed, so it sends them without a claim round of its own; the rest wait in
 * their rows for its claim rounds (it is woken).
 */
export interface FreshDeliveries {
  reserveFresh(wanted: number): number;
  freshRoomFor(endpointId: string): number;
  leaseFrom(now: Date): Date;
  takeFresh(reserved: number, claimed: readonly ClaimedDelivery[]): Promise<void>;
  wake(): void;
}

/** What dispatch routes by, as of one `routingVersion`. */
interface Routing {
  readonly version: number;
  readonly endpoints: readonly StoredEndpoint[];
  /** Resellers with a low-credit threshold. */
  readonly watched: ReadonlySet<string>;
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
export class OutboxDispatcher {
  private pending: AnyPlatformEvent[] = [];
  private routing: Routing | undefined;
  private flushing: Promise<void> | undefined;
  private worker: FreshDeliveries | undefined;

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

  /** This process's delivery worker: given the deliveries it has room for as they are made, woken for the rest. */
  handOffTo(worker: FreshDeliveries): void {
    this.worker = worker;
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
    // Their deliveries wait in their rows: a crash's leftovers are sent by claim rounds.
    await this.dispatch(claimed, { handOff: false });
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
          await this.dispatch(batch, { handOff: true });
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
   * routing version (one read) says it is current. With `handOff`, the deliveries this process's
   * worker has room for are claimed for it as they are inserted and given to it once committed.
   */
  private async dispatch(batch: readonly AnyPlatformEvent[], options: { handOff: boolean }): Promise<void> {
    const now = this.clock.now();
    const worker = options.handOff ? this.worker : undefined;
    // Room held for the hand-off before the transaction: what the batch could use within each
    // endpoint's room, no more (room held here is room the worker's own claim rounds wait for).
    let wanted = 0;
    if (worker)
      for (const e of this.routing?.endpoints ?? []) wanted += Math.min(batch.length, worker.freshRoomFor(e.id));
    const reserved = worker?.reserveFresh(wanted) ?? 0;
    const handOff =
      worker && reserved > 0
        ? { worker, room: reserved, claim: { token: ulid(), until: worker.leaseFrom(now) } }
        : undefined;
    let made: ReturnType<typeof deliveriesOf>;
    try {
      made = await this.uow.run(async (repos) => {
        const routing = await this.currentRouting(repos);
        const batchDeliveries = deliveriesOf(batch, routing.endpoints, now, handOff);
        await repos.webhooks.insertDeliveries(batchDeliveries.deliveries);
        if (routing.watched.size > 0) await lowCredit(repos, batch, routing.watched, now);
        await repos.events.markDispatched(
          batch.map((e) => e.id),
          now,
        );
        return batchDeliveries;
      });
    } catch (error) {
      await worker?.takeFresh(reserved, []);
      throw error;
    }
    await worker?.takeFresh(reserved, made.fresh);
    // The rest wait in their rows for a claim round.
    if (made.waiting > 0) this.worker?.wake();
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

/**
 * The batch's deliveries: one for each event an endpoint wants. With a hand-off, as many as the
 * worker's `room` allows (and each endpoint's own room there) are claimed for it, and given as it
 * will send them; only to endpoints whose last attempt from it succeeded, whose failure clock was
 * clear then. The others wait in their rows (`waiting`).
 */
function deliveriesOf(
  batch: readonly AnyPlatformEvent[],
  endpoints: readonly StoredEndpoint[],
  now: Date,
  handOff: { worker: FreshDeliveries; room: number; claim: { token: string; until: Date } } | undefined,
): { deliveries: NewDelivery[]; fresh: ClaimedDelivery[]; waiting: number } {
  const deliveries: NewDelivery[] = [];
  const fresh: ClaimedDelivery[] = [];
  let waiting = 0;
  let room = handOff?.room ?? 0;
  const roomOf = new Map<string, number>();
  for (const event of batch) {
    let body: string | undefined;
    for (const endpoint of endpoints) {
      if (!endpointWants(endpoint, event)) continue;
      const delivery = newDelivery(event, endpoint, now);
      const endpointRoom = roomOf.get(endpoint.id) ?? handOff?.worker.freshRoomFor(endpoint.id) ?? 0;
      if (handOff && room > 0 && endpointRoom > 0) {
        room--;
        roomOf.set(endpoint.id, endpointRoom - 1);
        body ??= deliveryBody(
          { id: event.id, type: event.type, version: event.version, occurredAt: Date.parse(event.timestamp) },
          event.resellerId,
          JSON.stringify(event.data),
        );
        deliveries.push({ ...delivery, claim: handOff.claim });
        fresh.push({
          id: delivery.id,
          claimToken: handOff.claim.token,
          attempts: 0,
          endpoint: { ...endpoint, failingSince: null },
          eventId: event.id,
          body,
          createdAt: now,
        });
      } else {
        roomOf.set(endpoint.id, endpointRoom);
        deliveries.push(delivery);
        waiting++;
      }
    }
  }
  return { deliveries, fresh, waiting };
}

function newDelivery(event: AnyPlatformEvent, endpoint: StoredEndpoint, now: Date): NewDelivery {
  return {
    // In the order they are made, also within one millisecond: claim rounds take the oldest first.
    id: orderedUlid(),
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
