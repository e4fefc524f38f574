import type { DomainStatus } from '../domain/domain';
import type { EventBus, EventName, PlatformEvents } from '../common/events';
import type { Repositories, UnitOfWork } from '../common/unit-of-work';

/** Events a unit of work collects, published once it has committed (and never for one rolled back or retried). */
export type Outbox = Array<{ [K in EventName]: { name: K; event: PlatformEvents[K] } }[EventName]>;

/** One unit of work whose events are published once it has committed, whoever listens. */
export async function runAndPublish<T>(
  uow: UnitOfWork,
  events: EventBus,
  work: (repos: Repositories, outbox: Outbox) => Promise<T>,
): Promise<T> {
  const outbox: Outbox = [];
  const result = await uow.run((repos) => {
    outbox.length = 0; // a transaction the database retried starts over
    return work(repos, outbox);
  });
  for (const { name, event } of outbox) events.emit(name, event as never);
  return result;
}

/** An order moved its domain from one status to another (nothing when the status stays). */
export function statusChanged(
  outbox: Outbox,
  order: { domainId: string; domain: string },
  resellerId: string,
  from: DomainStatus | null,
  to: DomainStatus,
  at: Date,
): void {
  if (from === to) return;
  outbox.push({
    name: 'domain.status_changed',
    event: { domainId: order.domainId, domain: order.domain, resellerId, from, to, cause: 'order', at },
  });
}
