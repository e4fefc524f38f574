import { recordChange } from '../audit/audit-log';
import type { Tld } from '../catalogue/catalogue';
import type { RegistrarGateway, SyncView, TransferSyncView } from '../registrar/registrar-gateway';
import type { Clock } from '../common/clock';
import type { Outbox } from '../events/outbox';
import { forEachConcurrentlyPerKey } from '../common/concurrency';
import { isDomainError } from '../common/errors';
import type { UnitOfWork } from '../common/unit-of-work';
import type { DomainChanges, DomainRecord, DomainStatus, SyncAnswer } from './domain';
import { isGone, isSyncable, statusesWhere } from './domain-lifecycle';

const DAY_MS = 86_400_000;

export interface SyncedDomain {
  readonly view: SyncView;
  /** The record after the sync (unchanged when nothing changed). */
  readonly domain: DomainRecord;
  readonly changes: DomainChanges;
}

export type SyncKind = 'domain' | 'transfer';

/**
 * What transfer sync learnt about a domain in Pending Transfer: the registrar reported the
 * transfer completed or failed, or (`unconfirmed`) the registrar cannot report transfers and the
 * gateway counts it completed on the platform's word, which settles no money.
 */
export type TransferOutcome =
  | { readonly kind: 'completed'; readonly expiryDate?: string }
  | { readonly kind: 'failed'; readonly reason: string }
  | { readonly kind: 'unconfirmed' };

/** What became of a transfer outcome handed to the domain's open transfer order. */
export type TransferHandOver =
  /** The domain has no open transfer order: transfer sync records the outcome itself. */
  | { readonly kind: 'no_order' }
  /** This call settled the order; `status` is the domain's status afterwards (null: the row the order created was removed). */
  | { readonly kind: 'settled'; readonly result: 'completed' | 'refunded'; readonly status: DomainStatus | null }
  /** The order settles the domain, not transfer sync: it was settled meanwhile, or it is held by whoever settles it. */
  | { readonly kind: 'left'; readonly note: string };

/**
 * The order flow, as transfer sync needs it (implemented by OrderService): a domain with an open
 * transfer order is settled through that order, money included, never by transfer sync alone.
 */
export interface TransferOrders {
  settleTransfer(domain: DomainRecord, outcome: TransferOutcome): Promise<TransferHandOver>;
}

/** The statuses each kind of sync works on: transfer sync follows domains still in Pending Transfer. */
export const SYNC_STATUSES: Readonly<Record<SyncKind, readonly DomainStatus[]>> = {
  domain: statusesWhere('isSyncable'),
  transfer: ['Pending Transfer'],
};

export interface SyncRoundProgress {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  readonly domain: string;
}

export interface SyncRoundOptions {
  readonly kind: SyncKind;
  /** Domains synced at or after this are not due (a round's start, or now minus the interval). */
  readonly syncedBefore: Date;
  /** Who claims the domains: a process and job, unique per pass. */
  readonly owner: string;
  /** Registrar calls in flight at once, per registrar plugin. */
  readonly concurrencyPerRegistrar: number;
  /** Domains claimed at a time. */
  readonly batchSize: number;
  /** How long a claim holds before another worker may take the domain (a worker that died). */
  readonly leaseMs: number;
  /** Aborted when the process stops: no new domain is started, claimed ones are given back. */
  readonly signal?: AbortSignal;
  readonly onProgress?: (progress: SyncRoundProgress) => void;
  /** The most changes and failures the report lists, each (default REPORT_LIST_LIMIT); the counts cover every domain. */
  readonly listLimit?: number;
}

export interface SyncedChange {
  domain: string;
  status?: { from: DomainStatus; to: DomainStatus };
  expiryDate?: { from: string | null; to: string | null };
}
export interface SyncFailure {
  domain: string;
  error: string;
}

export interface SyncRoundReport {
  readonly total: number;
  readonly synced: number;
  /** How many domains changed and failed; the lists hold the first `listLimit` of each by name. */
  readonly changedCount: number;
  readonly failedCount: number;
  readonly changed: SyncedChange[];
  readonly failed: SyncFailure[];
}

/** The most changes and failures a round lists (the counts cover all): the report stays small however many domains there are. */
export const REPORT_LIST_LIMIT = 1000;

/** Keeps the `limit` entries with the smallest names, trimming at twice the limit so sorting is paid once per `limit` entries. */
class FirstByName<T extends { domain: string }> {
  private entries: T[] = [];
  count = 0;

  constructor(private readonly limit: number) {}

  add(entry: T): void {
    this.count++;
    this.entries.push(entry);
    if (this.entries.length >= this.limit * 2) this.entries = this.sorted();
  }

  sorted(): T[] {
    return this.entries.sort((a, b) => a.domain.localeCompare(b.domain)).slice(0, this.limit);
  }
}

/**
 * The status a registrar's sync answer means for the platform. An expired domain is in Grace,
 * then Redemption, then Expired, by the days its TLD allows.
 */
export function statusFromSync(current: DomainStatus, view: SyncView, tld: Tld | undefined, today: Date): DomainStatus {
  if (view.transferredAway) return 'Transferred Away';
  if (view.cancelled) return 'Cancelled';
  if (view.expired) {
    if (!view.expiryDate || !tld) return 'Expired';
    const daysExpired = Math.floor((today.getTime() - Date.parse(`${view.expiryDate}T00:00:00Z`)) / DAY_MS);
    if (daysExpired <= tld.graceDays) return 'Grace';
    if (daysExpired <= tld.graceDays + tld.redemptionDays) return 'Redemption';
    return 'Expired';
  }
  if (view.active) return 'Active';
  return current;
}

/** Brings the platform's record of domains in line with their registrars (docs/api.md#transfer-sync, docs/api.md#domain-sync). */
export class DomainSyncService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly gateway: RegistrarGateway,
    private readonly clock: Clock,
    private readonly transferOrders: TransferOrders,
  ) {}

  /**
   * docs/api.md#domain-sync for one domain: asks the registrar, then records its answer, and expiry
   * and status (for the statuses sync owns), in one transaction. `audited`: an operator asked (the
   * console's "sync now"), so the audit entry is written in that transaction too.
   */
  async syncDomain(
    domain: DomainRecord,
    { audited = false }: { readonly audited?: boolean } = {},
  ): Promise<SyncedDomain> {
    // Final here (deleted, released, or an order that never took effect): our record is the answer, the registrar is not asked.
    if (isGone(domain.status)) {
      const view: SyncView = {
        active: false,
        expired: false,
        transferredAway: domain.status === 'Transferred Away',
        cancelled: domain.status === 'Cancelled',
        expiryDate: domain.expiryDate ?? undefined,
        fromPlatform: true,
      };
      return { view, domain, changes: {} };
    }
    const view = await this.ask(domain, 'sync', () => this.gateway.sync(domain));
    const changes: { status?: DomainStatus; expiryDate?: string } = {};
    if (!view.fromPlatform && isSyncable(domain.status)) {
      // The TLD's grace and redemption days matter only for an expired domain: no read for the others.
      const tld = view.expired ? await this.uow.read.catalogue.findTld(domain.tld) : undefined;
      const status = statusFromSync(domain.status, view, tld, this.clock.now());
      if (status !== domain.status) changes.status = status;
      if (view.expiryDate !== undefined && view.expiryDate !== domain.expiryDate) changes.expiryDate = view.expiryDate;
    }
    const nothingToWrite = view.fromPlatform && Object.keys(changes).length === 0 && !audited;
    if (nothingToWrite) return { view, domain, changes: {} };
    const at = this.clock.now();
    const applied = await this.uow.run(async (repos) => {
      // A registrar without the capability answered nothing: our own record is not its answer.
      if (!view.fromPlatform)
        await repos.domains.recordSyncAnswer(domain.id, { kind: 'sync', at, answer: answerFields(view), error: null });
      // Only while the status is still the one the registrar was asked about: a delete that landed meanwhile wins.
      const changed =
        Object.keys(changes).length > 0 &&
        (await repos.domains.update(domain.id, changes, at, { ifStatus: domain.status }));
      if (changed && changes.status !== undefined) statusChanged(repos.outbox, domain, changes.status, 'sync', at);
      if (audited)
        await recordChange(repos.audit, this.clock, {
          action: 'domain.sync',
          subject: { kind: 'domain', id: domain.name },
          before: { status: domain.status, expiryDate: domain.expiryDate },
          after: { ...(changed ? changes : {}), registrarAnswer: view.fromPlatform ? null : answerFields(view) },
        });
      return changed;
    });
    if (!applied) return { view, domain, changes: {} };
    return { view, domain: { ...domain, ...changes }, changes };
  }

  /**
   * docs/api.md#transfer-sync for one domain. A completed transfer makes a Pending Transfer domain Active with the
   * registrar's expiry. When the domain has an open transfer order, the outcome is handed to the
   * order flow instead (OrderService.settleTransfer): a completed transfer completes the order, a
   * failed one fails it and refunds the reservation, each exactly once, with the order's own
   * transitions and events. A failed transfer without an open order is reported and left pending.
   */
  async transferSync(domain: DomainRecord): Promise<TransferSyncView> {
    return (await this.applyTransferSync(domain)).view;
  }

  private async applyTransferSync(
    domain: DomainRecord,
  ): Promise<{ view: TransferSyncView; status?: DomainStatus | null }> {
    if (isGone(domain.status)) {
      // A transfer whose order was refunded (or a domain gone since): the billing platform learns it failed, from our record.
      const reason = `${domain.unicodeName} is ${domain.status} on this platform; the transfer did not take effect here`;
      return { view: { completed: false, failed: true, reason, expiryDate: undefined, fromPlatform: true } };
    }
    const view = await this.ask(domain, 'transfer_sync', () => this.gateway.transferSync(domain));
    if (!view.fromPlatform)
      await this.uow.run(({ domains }) =>
        domains.recordSyncAnswer(domain.id, {
          kind: 'transfer_sync',
          at: this.clock.now(),
          answer: answerFields(view),
          error: null,
        }),
      );
    if (domain.status === 'Pending Transfer' && (view.completed || view.failed)) {
      const outcome: TransferOutcome = view.fromPlatform
        ? { kind: 'unconfirmed' }
        : view.completed
          ? { kind: 'completed', ...(view.expiryDate !== undefined ? { expiryDate: view.expiryDate } : {}) }
          : { kind: 'failed', reason: view.reason ?? 'no reason given' };
      const handed = await this.transferOrders.settleTransfer(domain, outcome);
      if (handed.kind === 'settled') return { view, status: handed.status };
      if (handed.kind === 'left') return { view };
    }
    if (view.completed && domain.status === 'Pending Transfer') {
      const changes: DomainChanges = {
        status: 'Active',
        ...(view.expiryDate !== undefined ? { expiryDate: view.expiryDate } : {}),
      };
      const at = this.clock.now();
      const applied = await this.uow.run(async (repos) => {
        if (!(await repos.domains.update(domain.id, changes, at, { ifStatus: 'Pending Transfer' }))) return false;
        statusChanged(repos.outbox, domain, 'Active', 'transfer_sync', at);
        return true;
      });
      if (applied) return { view, status: 'Active' };
    } else if (
      view.completed &&
      view.expiryDate !== undefined &&
      view.expiryDate !== domain.expiryDate &&
      isSyncable(domain.status)
    ) {
      await this.uow.run((repos) =>
        repos.domains.update(domain.id, { expiryDate: view.expiryDate }, this.clock.now(), { ifStatus: domain.status }),
      );
    }
    return { view };
  }

  /**
   * Asks the registrar; a failed call is kept as the domain's last sync answer, with its time and
   * reason (an answer is kept by the caller, with what it changes). The views hold flags, dates and
   * a reason only: nothing secret is kept.
   */
  private async ask<V extends SyncView | TransferSyncView>(
    domain: DomainRecord,
    kind: SyncAnswer['kind'],
    call: () => Promise<V>,
  ): Promise<V> {
    try {
      return await call();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      // The registrar's failure is what the caller hears, even when it cannot be kept.
      await this.uow
        .run(({ domains }) =>
          domains.recordSyncAnswer(domain.id, { kind, at: this.clock.now(), answer: null, error: message }),
        )
        .catch(() => undefined);
      throw error;
    }
  }

  /**
   * One round of background sync (the server's jobs and `reseller-admin sync`): claims the due
   * domains a batch at a time, asks their registrars with bounded concurrency per registrar, and
   * stamps each one synced. Any number of workers on any number of processes may run rounds at
   * once: each domain is claimed by one of them (a lease taken by a conditional update), so none
   * is synced twice in a round. One domain's failure is reported and the rest go on.
   */
  async syncDue(options: SyncRoundOptions): Promise<SyncRoundReport> {
    const statuses = SYNC_STATUSES[options.kind];
    const release = (ids: readonly string[], syncedAt: Date | null) =>
      this.uow.run((repos) => repos.domains.releaseSyncClaims(ids, options.owner, syncedAt));
    const total = await this.uow.read.domains.countDueForSync({
      statuses,
      syncedBefore: options.syncedBefore,
      now: this.clock.now(),
    });
    const changed = new FirstByName<SyncedChange>(options.listLimit ?? REPORT_LIST_LIMIT);
    const failed = new FirstByName<SyncFailure>(options.listLimit ?? REPORT_LIST_LIMIT);
    let synced = 0;
    let done = 0;
    const claim = () => {
      const now = this.clock.now();
      const batch = this.uow.run((repos) =>
        repos.domains.claimForSync({
          statuses,
          syncedBefore: options.syncedBefore,
          now,
          leaseUntil: new Date(now.getTime() + options.leaseMs),
          owner: options.owner,
          limit: options.batchSize,
        }),
      );
      // Claimed ahead: a failure is reported where the batch is awaited, not as an unhandled rejection meanwhile.
      batch.catch(() => undefined);
      return batch;
    };
    let next = options.signal?.aborted ? undefined : claim();
    while (next) {
      const batch = await next;
      if (batch.length === 0) break;
      // The next batch is claimed while this one is worked on, so the workers never wait for a claim.
      next = options.signal?.aborted ? undefined : claim();
      const finished: string[] = [];
      const untouched: string[] = [];
      await forEachConcurrentlyPerKey(
        batch,
        (d) => d.registrar,
        options.concurrencyPerRegistrar,
        async (domain) => {
          if (options.signal?.aborted) {
            untouched.push(domain.id);
            return;
          }
          try {
            const change = await this.syncOne(options.kind, domain);
            synced++;
            if (change) changed.add(change);
          } catch (error) {
            failed.add({
              domain: domain.unicodeName,
              error: isDomainError(error) || error instanceof Error ? error.message : String(error),
            });
          }
          // A failed domain counts as synced for this round too: it is asked again next round, not hammered.
          finished.push(domain.id);
          done++;
          options.onProgress?.({
            done,
            total: Math.max(total, done),
            failed: failed.count,
            domain: domain.unicodeName,
          });
        },
      );
      // One statement per batch rather than one write per domain (each a commit: on SQLite a WAL sync).
      await release(finished, this.clock.now());
      await release(untouched, null);
    }
    // A batch claimed ahead and then not worked on (the process is stopping) is given back unsynced.
    if (next)
      await release(
        (await next.catch(() => [])).map((d) => d.id),
        null,
      );
    return {
      total: Math.max(total, done),
      synced,
      changedCount: changed.count,
      failedCount: failed.count,
      changed: changed.sorted(),
      failed: failed.sorted(),
    };
  }

  private async syncOne(kind: SyncKind, domain: DomainRecord): Promise<SyncedChange | undefined> {
    if (kind === 'transfer') {
      const { status } = await this.applyTransferSync(domain);
      // A row removed by a failed order has no status to report (null): the order's events tell it.
      return status ? { domain: domain.unicodeName, status: { from: domain.status, to: status } } : undefined;
    }
    const { changes } = await this.syncDomain(domain);
    if (changes.status === undefined && changes.expiryDate === undefined) return undefined;
    return {
      domain: domain.unicodeName,
      ...(changes.status !== undefined ? { status: { from: domain.status, to: changes.status } } : {}),
      ...(changes.expiryDate !== undefined ? { expiryDate: { from: domain.expiryDate, to: changes.expiryDate } } : {}),
    };
  }
}

function statusChanged(
  outbox: Outbox,
  domain: DomainRecord,
  to: DomainStatus,
  cause: 'sync' | 'transfer_sync',
  at: Date,
): void {
  outbox.push({
    name: 'domain.status_changed',
    event: {
      domainId: domain.id,
      domain: domain.name,
      resellerId: domain.resellerId,
      from: domain.status,
      to,
      cause,
      at,
    },
  });
}

/** The fields of a view as the console shows them (undefined ones left out). */
function answerFields(view: SyncView | TransferSyncView): Record<string, string | boolean | null> {
  const fields: Record<string, string | boolean | null> = {};
  for (const [key, value] of Object.entries(view))
    if (key !== 'fromPlatform' && value !== undefined) fields[key] = value as string | boolean | null;
  return fields;
}
