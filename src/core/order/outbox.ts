import type { DomainStatus } from '../domain/domain';
import type { Outbox } from '../events/outbox';
import type { TransactionScope, UnitOfWork } from '../common/unit-of-work';

export type { Outbox } from '../events/outbox';

/** One unit of work whose events are recorded in its transaction's outbox. */
export function runAndPublish<T>(
  uow: UnitOfWork,
  work: (repos: TransactionScope, outbox: Outbox) => Promise<T>,
): Promise<T> {
  return uow.run((repos) => work(repos, repos.outbox));
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
