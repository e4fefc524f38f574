import type { GroupRepository, ResellerRepository } from '../reseller/reseller';
import type { CatalogueRepository } from '../catalogue/catalogue';
import type { LedgerRepository } from '../credit/ledger';
import type { DomainRepository } from '../domain/domain';
import type { IdempotencyRepository, OrderRepository } from '../order/order';
import type { EventRepository, Outbox } from '../events/outbox';
import type { WebhookRepository } from '../webhooks/webhook';
import type { ExpiryRepository } from '../domain/domain-expiry';
import type { AuditLogRepository } from '../audit/audit-log';
import type { OperatorRepository } from '../operator/operator';
import type { PortalLoginRepository } from '../reseller/portal-logins';
import type { OneTimeLinkRepository } from '../auth/one-time-links';

/** Every repository, bound to one connection or one transaction. */
export interface Repositories {
  readonly resellers: ResellerRepository;
  readonly groups: GroupRepository;
  readonly catalogue: CatalogueRepository;
  readonly ledger: LedgerRepository;
  readonly domains: DomainRepository;
  readonly orders: OrderRepository;
  readonly idempotency: IdempotencyRepository;
  readonly events: EventRepository;
  readonly webhooks: WebhookRepository;
  readonly expiry: ExpiryRepository;
  /** Append-only: a change writes its entry here, in its own transaction (`auditEntry`). */
  readonly audit: AuditLogRepository;
  readonly operators: OperatorRepository;
  readonly portalLogins: PortalLoginRepository;
  readonly oneTimeLinks: OneTimeLinkRepository;
}

/** What a unit of work's `work` is given: the repositories bound to its transaction, and its outbox. */
export interface TransactionScope extends Repositories {
  /**
   * The only way to publish an event (ADR 15): recorded events are written in one statement
   * with the transaction's changes, and reach subscribers and webhooks after it commits.
   */
  readonly outbox: Outbox;
}

/**
 * The core's only way to touch storage. `run` is one short transaction (never held across a
 * registrar call): every write goes through it, a single statement too (claims, notes, lease
 * releases, purges). `read` uses the pool directly, for reads only.
 */
export interface UnitOfWork {
  run<T>(work: (repos: TransactionScope) => Promise<T>): Promise<T>;
  readonly read: Repositories;
}
