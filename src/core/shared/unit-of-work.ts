import type { GroupRepository, ResellerRepository } from '../reseller/reseller';
import type { CatalogueRepository } from '../catalogue/catalogue';
import type { LedgerRepository } from '../credit/ledger';
import type { DomainRepository } from '../domain/domain';
import type { IdempotencyRepository, OrderRepository } from '../order/order';

/** Every repository, bound to one connection or one transaction. */
export interface Repositories {
  readonly resellers: ResellerRepository;
  readonly groups: GroupRepository;
  readonly catalogue: CatalogueRepository;
  readonly ledger: LedgerRepository;
  readonly domains: DomainRepository;
  readonly orders: OrderRepository;
  readonly idempotency: IdempotencyRepository;
}

/**
 * The core's only way to touch storage. `run` is one short transaction (never held across a
 * registrar call); `read` uses the pool directly for single statements.
 */
export interface UnitOfWork {
  run<T>(work: (repos: Repositories) => Promise<T>, options?: RunOptions): Promise<T>;
  readonly read: Repositories;
}

export interface RunOptions {
  /**
   * The work issues at most one statement, which the database applies atomically on its own: a
   * unit of work may run it without a transaction (saving the BEGIN and COMMIT round trips).
   * Running it in a transaction anyway is always correct.
   */
  readonly oneStatement?: boolean;
}
