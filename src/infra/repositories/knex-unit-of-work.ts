import type { Knex } from 'knex';
import type { LedgerFactory } from '../../core/credit/ledger';
import type { Repositories, UnitOfWork } from '../../core/shared/unit-of-work';
import { KnexCatalogueRepository } from './knex-catalogue-repository';
import { KnexDomainRepository } from './knex-domain-repository';
import { KnexLedgerRepository } from './knex-ledger-repository';
import { KnexGroupRepository, KnexResellerRepository } from './knex-reseller-repository';

/** The platform's own ledger (credit_accounts and credit_entries). */
export const knexLedger: LedgerFactory = (connection) => new KnexLedgerRepository(connection as Knex | Knex.Transaction);

export function knexRepositories(db: Knex | Knex.Transaction, ledger: LedgerFactory = knexLedger): Repositories {
  return {
    resellers: new KnexResellerRepository(db),
    groups: new KnexGroupRepository(db),
    catalogue: new KnexCatalogueRepository(db),
    ledger: ledger(db),
    domains: new KnexDomainRepository(db),
  };
}

export class KnexUnitOfWork implements UnitOfWork {
  readonly read: Repositories;

  constructor(
    private readonly db: Knex,
    private readonly ledger: LedgerFactory = knexLedger,
  ) {
    this.read = knexRepositories(db, ledger);
  }

  run<T>(work: (repos: Repositories) => Promise<T>): Promise<T> {
    return this.db.transaction((trx) => work(knexRepositories(trx, this.ledger)));
  }
}
