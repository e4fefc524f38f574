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
 * registrar call): every write goes through it, a single statement too (claims, notes, lease
 * releases, purges). `read` uses the pool directly, for reads only.
 */
export interface UnitOfWork {
  run<T>(work: (repos: Repositories) => Promise<T>): Promise<T>;
  readonly read: Repositories;
}
