import type { Knex } from 'knex';
import type { Repositories, UnitOfWork } from '../../core/shared/unit-of-work';
import { KnexCatalogueRepository } from './knex-catalogue-repository';
import { KnexDomainRepository } from './knex-domain-repository';
import { KnexLedgerRepository } from './knex-ledger-repository';
import { KnexGroupRepository, KnexResellerRepository } from './knex-reseller-repository';

export function knexRepositories(db: Knex | Knex.Transaction): Repositories {
  return {
    resellers: new KnexResellerRepository(db),
    groups: new KnexGroupRepository(db),
    catalogue: new KnexCatalogueRepository(db),
    ledger: new KnexLedgerRepository(db),
    domains: new KnexDomainRepository(db),
  };
}

export class KnexUnitOfWork implements UnitOfWork {
  readonly read: Repositories;

  constructor(private readonly db: Knex) {
    this.read = knexRepositories(db);
  }

  run<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    return this.db.transaction((trx) => work(knexRepositories(trx)));
  }
}
