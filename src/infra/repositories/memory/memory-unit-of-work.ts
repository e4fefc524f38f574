import { AsyncLocalStorage } from 'node:async_hooks';
import type { AnyPlatformEvent } from '../../../core/common/events';
import type { Repositories, TransactionScope, UnitOfWork } from '../../../core/common/unit-of-work';
import { RecordedEvents } from '../../../core/events/outbox';
import { MemoryAuditLogRepository } from './memory-audit-log-repository';
import { MemoryCatalogueRepository } from './memory-catalogue-repository';
import { MemoryDomainRepository } from './memory-domain-repository';
import { MemoryEventRepository } from './memory-event-repository';
import { MemoryExpiryRepository } from './memory-expiry-repository';
import { MemoryLedgerRepository } from './memory-ledger-repository';
import { MemoryIdempotencyRepository, MemoryOrderRepository } from './memory-order-repository';
import { MemoryGroupRepository, MemoryResellerRepository } from './memory-reseller-repository';
import {
  MemoryOneTimeLinkRepository,
  MemoryOperatorRepository,
  MemoryPortalLoginRepository,
} from './memory-sign-in-repositories';
import { emptyTables, type MemoryTables, type TablesRef } from './memory-tables';
import { MemoryWebhookRepository } from './memory-webhook-repository';

/** The fourteen repositories over one set of tables (the committed ones, or a transaction's copy). */
export function memoryRepositories(ref: TablesRef): Repositories {
  return {
    resellers: new MemoryResellerRepository(ref),
    groups: new MemoryGroupRepository(ref),
    catalogue: new MemoryCatalogueRepository(ref),
    ledger: new MemoryLedgerRepository(ref),
    domains: new MemoryDomainRepository(ref),
    orders: new MemoryOrderRepository(ref),
    idempotency: new MemoryIdempotencyRepository(ref),
    events: new MemoryEventRepository(ref),
    webhooks: new MemoryWebhookRepository(ref),
    expiry: new MemoryExpiryRepository(ref),
    audit: new MemoryAuditLogRepository(ref),
    operators: new MemoryOperatorRepository(ref),
    portalLogins: new MemoryPortalLoginRepository(ref),
    oneTimeLinks: new MemoryOneTimeLinkRepository(ref),
  };
}

/** The transaction the current code runs in, while it runs. */
const insideRun = new AsyncLocalStorage<{ active: boolean }>();

/**
 * The in-memory twin of KnexUnitOfWork, beside the real adapters (docs/architecture.md), for rules
 * tested without a database. Transactions run one at a time, as SQLite's single writer runs
 * them, so row locks are no-ops; each works on a copy of the tables that replaces them when it
 * ends and is dropped when it throws (a rollback), and its recorded events are stored with it
 * and handed to `committed` after. The tables keep the constraints the migrations declare
 * (unique keys, folded as MariaDB folds them unless its column is binary; foreign keys; integer
 * money; a webhook URL no longer than its column), so the twin refuses whatever the database
 * refuses: test/integration/unit-of-work-contract.test.ts runs the same cases on both. Not modelled: concurrency between transactions (they never interleave here, so
 * races stay on MariaDB), and isolation of writes made through `read`, which the port forbids.
 */
export class MemoryUnitOfWork implements UnitOfWork, TablesRef {
  tables: MemoryTables = emptyTables();
  readonly read: Repositories = memoryRepositories(this);
  private queue: Promise<unknown> = Promise.resolve();

  constructor(private readonly committed: (events: readonly AnyPlatformEvent[]) => void = () => {}) {}

  run<T>(work: (repos: TransactionScope) => Promise<T>): Promise<T> {
    // A transaction started inside another cannot see its writes and, here, would wait for it forever.
    if (insideRun.getStore()?.active)
      return Promise.reject(new Error('memory twin: a unit of work was started inside another'));
    const turn = this.queue.then(async () => {
      const current = { active: true };
      try {
        return await insideRun.run(current, () => this.transaction(work));
      } finally {
        current.active = false;
      }
    });
    this.queue = turn.catch(() => {});
    // Told after the commit, outside the transaction: subscribers may start units of work of their own.
    return turn.then(({ result, events }) => {
      if (events.length > 0) this.committed(events);
      return result;
    });
  }

  private async transaction<T>(
    work: (repos: TransactionScope) => Promise<T>,
  ): Promise<{ result: T; events: readonly AnyPlatformEvent[] }> {
    const copy: TablesRef = { tables: structuredClone(this.tables) };
    const outbox = new RecordedEvents();
    const repos = memoryRepositories(copy);
    const result = await work({ ...repos, outbox });
    if (outbox.events.length > 0) await repos.events.insert(outbox.events);
    this.tables = copy.tables;
    return { result, events: outbox.events };
  }
}
