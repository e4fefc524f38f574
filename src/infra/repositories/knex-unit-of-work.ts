import type { Knex } from 'knex';
import type { Db } from '../db/db';
import type { LedgerFactory } from '../../core/credit/ledger';
import type { Repositories, TransactionScope, UnitOfWork } from '../../core/common/unit-of-work';
import type { AnyPlatformEvent } from '../../core/common/events';
import { RecordedEvents } from '../../core/events/outbox';
import { KnexEventRepository } from './knex-event-repository';
import { KnexWebhookRepository } from './knex-webhook-repository';
import { KnexExpiryRepository } from './knex-expiry-repository';
import { KnexCatalogueRepository } from './knex-catalogue-repository';
import { KnexDomainRepository } from './knex-domain-repository';
import { KnexLedgerRepository } from './knex-ledger-repository';
import { KnexGroupRepository, KnexResellerRepository } from './knex-reseller-repository';
import { KnexIdempotencyRepository } from './knex-idempotency-repository';
import { KnexOrderRepository } from './knex-order-repository';
import { KnexAuditLogRepository } from './knex-audit-log-repository';
import { KnexOperatorRepository } from './knex-operator-repository';
import { KnexPortalLoginRepository } from './knex-portal-login-repository';
import { KnexOneTimeLinkRepository } from './knex-one-time-link-repository';
import { type DatabasePools, type HotReads, knexPools } from '../db/driver-pools';
import { isConnectionLost, isRetryableTransactionError } from '../db/errors';

/** The platform's own ledger (credit_accounts and credit_entries). */
export const knexLedger: LedgerFactory = (connection) => new KnexLedgerRepository(connection as Db);

/** `reads`: the hot-path reader, for repositories outside any transaction only (a transaction reads its own writes). */
export function knexRepositories(db: Db, ledger: LedgerFactory = knexLedger, reads?: HotReads): Repositories {
  return {
    resellers: new KnexResellerRepository(db, reads),
    groups: new KnexGroupRepository(db),
    catalogue: new KnexCatalogueRepository(db),
    ledger: ledger(db),
    domains: new KnexDomainRepository(db),
    orders: new KnexOrderRepository(db),
    idempotency: new KnexIdempotencyRepository(db),
    events: new KnexEventRepository(db),
    webhooks: new KnexWebhookRepository(db),
    expiry: new KnexExpiryRepository(db),
    audit: new KnexAuditLogRepository(db),
    operators: new KnexOperatorRepository(db),
    portalLogins: new KnexPortalLoginRepository(db),
    oneTimeLinks: new KnexOneTimeLinkRepository(db),
  };
}

/** Told of the events of each transaction that committed (the outbox dispatcher: ADR 15). */
export type CommittedEvents = (events: readonly AnyPlatformEvent[]) => void;

const MAX_ATTEMPTS = 5;

export class KnexUnitOfWork implements UnitOfWork {
  readonly read: Repositories;
  /**
   * `pools`: the reads outside any transaction and the transactions, as the composition chose them
   * (src/infra/db/driver-pools.ts); knex's own by default.
   */
  constructor(
    db: Knex,
    private readonly ledger: LedgerFactory = knexLedger,
    private readonly pools: Pick<DatabasePools, 'reads' | 'transactions'> = knexPools(db),
    private readonly committed: CommittedEvents = () => {},
  ) {
    this.read = knexRepositories(db, ledger, pools.reads);
  }

  /**
   * One transaction. A transaction the database aborted to break a deadlock (InnoDB picks a
   * victim when concurrent orders race for one name) wrote nothing, so it is run again; so is,
   * once, one whose connection died before its COMMIT was sent (killed, a server or Galera node
   * restarted): the database rolled it back, and the pool gives the next attempt a fresh connection.
   * A connection lost during the round trip of the COMMIT (which carries the outbox's INSERT)
   * leaves the outcome unknown: never run again.
   * `work` must only touch the repositories it is given.
   */
  async run<T>(work: (repos: TransactionScope) => Promise<T>): Promise<T> {
    let reconnected = false;
    for (let attempt = 1; ; attempt++) {
      // A transaction the database retried starts over with an empty outbox.
      const outbox = new RecordedEvents();
      let workDone = false;
      const inTransaction = (db: Db): Promise<T> => work({ ...knexRepositories(db, this.ledger), outbox });
      // ADR 15: the one statement publishing adds to a transaction, and only when it published;
      // its last, so that it travels with the COMMIT.
      const publishing = (db: Db) => {
        workDone = true;
        return outbox.events.length > 0 ? new KnexEventRepository(db).insertStatement(outbox.events) : undefined;
      };
      try {
        const result = await this.pools.transactions.run(inTransaction, publishing);
        if (outbox.events.length > 0) this.committed(outbox.events);
        return result;
      } catch (error) {
        if (!workDone && !reconnected && isConnectionLost(error)) {
          reconnected = true;
          continue;
        }
        if (attempt >= MAX_ATTEMPTS || !isRetryableTransactionError(error)) throw error;
        await new Promise((resolve) => setTimeout(resolve, Math.floor(Math.random() * 20 * attempt)));
      }
    }
  }
}
