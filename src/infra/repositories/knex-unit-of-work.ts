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
import { type DirectTransactions, directTransactionsOf, type HotReads } from '../db/direct-reads';
import { endsTransaction, isConnectionLost, isRetryableTransactionError } from '../db/errors';

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
  };
}

/** Told of the events of each transaction that committed (the outbox dispatcher: ADR 15). */
export type CommittedEvents = (events: readonly AnyPlatformEvent[]) => void;

const MAX_ATTEMPTS = 5;

export class KnexUnitOfWork implements UnitOfWork {
  readonly read: Repositories;
  /**
   * MySQL/MariaDB opened by the module: transactions on the driver's pool (src/infra/db/direct-reads.ts).
   * Otherwise knex's own: SQLite (knex holds the one writer connection), a knex instance the host
   * owns, and a host's ledger, which is promised the knex transaction (docs/embedding.md).
   */
  private readonly direct: DirectTransactions | undefined;

  constructor(
    private readonly db: Knex,
    private readonly ledger: LedgerFactory = knexLedger,
    reads?: HotReads,
    private readonly committed: CommittedEvents = () => {},
  ) {
    this.read = knexRepositories(db, ledger, reads);
    this.direct = ledger === knexLedger ? directTransactionsOf(reads) : undefined;
  }

  /**
   * One transaction. A transaction the database aborted to break a deadlock (InnoDB picks a
   * victim when concurrent orders race for one name) wrote nothing, so it is run again; so is,
   * once, one whose connection died before its COMMIT was sent (killed, a server or Galera node
   * restarted): the database rolled it back, and the pool gives the next attempt a fresh connection.
   * A connection lost during the COMMIT itself leaves the outcome unknown: never run again.
   * `work` must only touch the repositories it is given.
   */
  async run<T>(work: (repos: TransactionScope) => Promise<T>): Promise<T> {
    let reconnected = false;
    for (let attempt = 1; ; attempt++) {
      // A transaction the database retried starts over with an empty outbox.
      const outbox = new RecordedEvents();
      let workDone = false;
      const inTransaction = async (db: Db, ledger: LedgerFactory = this.ledger): Promise<T> => {
        const repos = knexRepositories(db, ledger);
        const result = await work({ ...repos, outbox });
        // ADR 15: the one statement publishing adds to a transaction, and only when it published.
        if (outbox.events.length > 0) await repos.events.insert(outbox.events);
        workDone = true;
        return result;
      };
      try {
        const result = await (this.direct
          ? this.direct.transaction(this.db, inTransaction)
          : this.db.transaction(async (trx) => {
              // After a statement that rolled the transaction back, knex's session is in autocommit:
              // each later statement would commit on its own. None is sent; the first error is
              // thrown (a deadlock runs the work again). A host's ledger keeps the knex transaction.
              let ended: unknown;
              trx.on('query-error', (error: unknown) => {
                if (ended === undefined && endsTransaction(error)) ended = error;
              });
              const guarded = refusingAfter(trx, () => ended);
              const result = await inTransaction(
                guarded,
                this.ledger === knexLedger ? knexLedger : () => this.ledger(trx),
              );
              if (ended !== undefined) throw ended;
              return result;
            }));
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

/** `db` that refuses to start a statement once `ended()` answers the error that ended its transaction. */
function refusingAfter(db: Db, ended: () => unknown): Db {
  const check = () => {
    const error = ended();
    if (error !== undefined) throw error;
  };
  const table = (name: string) => {
    check();
    return db(name);
  };
  const raw = (...args: Parameters<Knex.RawBuilder>) => {
    check();
    return db.raw(...args);
  };
  return Object.assign(table, { raw: raw as Knex.RawBuilder, client: db.client }) as Db;
}
