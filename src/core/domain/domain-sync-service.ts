import type { Tld } from '../catalogue/catalogue';
import type { RegistrarGateway, SyncView, TransferSyncView } from '../registrar/registrar-gateway';
import type { Clock } from '../shared/clock';
import { forEachConcurrently } from '../shared/concurrency';
import { isDomainError } from '../shared/errors';
import type { UnitOfWork } from '../shared/unit-of-work';
import type { DomainChanges, DomainRecord, DomainStatus } from './domain';

/**
 * The statuses sync may change. Pending domains belong to their orders (reconciliation settles
 * them, money included); Cancelled, Transferred Away and Fraud are final on this platform.
 */
export const SYNCED_STATUSES: readonly DomainStatus[] = ['Active', 'Grace', 'Redemption', 'Expired'];

const DAY_MS = 86_400_000;

export interface SyncedDomain {
  readonly view: SyncView;
  /** The record after the sync (unchanged when nothing changed). */
  readonly domain: DomainRecord;
  readonly changes: DomainChanges;
}

export interface SyncAllProgress {
  readonly done: number;
  readonly total: number;
  readonly failed: number;
  readonly domain: string;
}

export interface SyncAllOptions {
  /** Registrar calls in flight at once. */
  readonly concurrency: number;
  readonly onProgress?: (progress: SyncAllProgress) => void;
  /** The most changes and failures listed in the report, each (default 1000); the counts cover every domain. */
  readonly listLimit?: number;
}

export interface SyncedChange { domain: string; status?: { from: DomainStatus; to: DomainStatus }; expiryDate?: { from: string | null; to: string | null } }
export interface SyncFailure { domain: string; error: string }

export interface SyncAllReport {
  readonly total: number;
  readonly synced: number;
  readonly changedCount: number;
  readonly failedCount: number;
  /** The first `listLimit` changed domains by name (all of them when there are no more). */
  readonly changed: SyncedChange[];
  /** The first `listLimit` failed domains by name. */
  readonly failed: SyncFailure[];
}

const DEFAULT_LIST_LIMIT = 1000;
const PAGE_SIZE = 200;

/**
 * Keeps the `limit` entries with the smallest names, whatever their number: memory stays flat
 * however many domains a sync covers. Trims when it reaches twice the limit, so the sorting is
 * paid once per `limit` entries.
 */
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

/** Brings the platform's record of domains in line with their registrars (spec 4.6, 4.7). */
export class DomainSyncService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly gateway: RegistrarGateway,
    private readonly clock: Clock,
  ) {}

  /** Spec 4.7 for one domain: asks the registrar, then records expiry and status (for the statuses sync owns). */
  syncDomain(domain: DomainRecord): Promise<SyncedDomain> {
    return this.syncOne(domain, (tld) => this.uow.read.catalogue.findTld(tld));
  }

  private async syncOne(domain: DomainRecord, findTld: (tld: string) => Promise<Tld | undefined>): Promise<SyncedDomain> {
    const view = await this.gateway.sync(domain);
    if (view.fromPlatform || !SYNCED_STATUSES.includes(domain.status)) return { view, domain, changes: {} };
    const tld = await findTld(domain.tld);
    const status = statusFromSync(domain.status, view, tld, this.clock.now());
    const changes: { status?: DomainStatus; expiryDate?: string } = {};
    if (status !== domain.status) changes.status = status;
    if (view.expiryDate !== undefined && view.expiryDate !== domain.expiryDate) changes.expiryDate = view.expiryDate;
    if (Object.keys(changes).length === 0) return { view, domain, changes };
    // Only while the status is still the one the registrar was asked about: a delete that landed meanwhile wins.
    const applied = await this.uow.run((repos) => repos.domains.update(domain.id, changes, this.clock.now(), { ifStatus: domain.status }));
    return applied ? { view, domain: { ...domain, ...changes }, changes } : { view, domain, changes: {} };
  }

  /**
   * Spec 4.6 for one domain. A completed transfer makes a Pending Transfer domain Active with the
   * registrar's expiry. A failed one is left pending: the orders reconciliation refunds and closes it.
   */
  async transferSync(domain: DomainRecord): Promise<TransferSyncView> {
    const view = await this.gateway.transferSync(domain);
    if (view.completed && domain.status === 'Pending Transfer') {
      const changes: DomainChanges = { status: 'Active', ...(view.expiryDate !== undefined ? { expiryDate: view.expiryDate } : {}) };
      await this.uow.run((repos) => repos.domains.update(domain.id, changes, this.clock.now(), { ifStatus: 'Pending Transfer' }));
    } else if (view.completed && view.expiryDate !== undefined && view.expiryDate !== domain.expiryDate && SYNCED_STATUSES.includes(domain.status)) {
      await this.uow.run((repos) => repos.domains.update(domain.id, { expiryDate: view.expiryDate }, this.clock.now(), { ifStatus: domain.status }));
    }
    return view;
  }

  /**
   * Syncs every domain in a status sync owns (`reseller-admin sync`), at most `concurrency`
   * registrar calls at once. One domain's failure is reported and the rest go on.
   */
  async syncAll(options: SyncAllOptions): Promise<SyncAllReport> {
    const total = await this.uow.read.domains.countByStatus(SYNCED_STATUSES);
    const limit = options.listLimit ?? DEFAULT_LIST_LIMIT;
    const changed = new FirstByName<SyncedChange>(limit);
    const failed = new FirstByName<SyncFailure>(limit);
    // The TLDs' grace and redemption days, read once per TLD for the whole run rather than per domain.
    const tlds = new Map<string, Promise<Tld | undefined>>();
    const findTld = (tld: string) => {
      let found = tlds.get(tld);
      if (!found) tlds.set(tld, (found = this.uow.read.catalogue.findTld(tld)));
      return found;
    };
    let synced = 0;
    let done = 0;
    await forEachConcurrently(this.pages(), options.concurrency, async (domain) => {
      try {
        const { changes } = await this.syncOne(domain, findTld);
        synced++;
        if (changes.status !== undefined || changes.expiryDate !== undefined) {
          changed.add({
            domain: domain.unicodeName,
            ...(changes.status !== undefined ? { status: { from: domain.status, to: changes.status } } : {}),
            ...(changes.expiryDate !== undefined ? { expiryDate: { from: domain.expiryDate, to: changes.expiryDate } } : {}),
          });
        }
      } catch (error) {
        failed.add({ domain: domain.unicodeName, error: isDomainError(error) || error instanceof Error ? error.message : String(error) });
      }
      done++;
      options.onProgress?.({ done, total: Math.max(total, done), failed: failed.count, domain: domain.unicodeName });
    });
    return {
      total: Math.max(total, done), synced, changedCount: changed.count, failedCount: failed.count, changed: changed.sorted(), failed: failed.sorted(),
    };
  }

  /**
   * Pages through the domains by name, reading the next page while this one is worked on, so the
   * workers never wait for a page: at most two pages in memory, however many domains there are.
   */
  private async *pages(): AsyncGenerator<DomainRecord> {
    const read = (after: string | undefined) => {
      const page = this.uow.read.domains.listByStatus(SYNCED_STATUSES, { after, limit: PAGE_SIZE });
      // Read ahead: a failure is reported where the page is awaited, not as an unhandled rejection meanwhile.
      page.catch(() => undefined);
      return page;
    };
    let next = read(undefined);
    for (;;) {
      const page = await next;
      if (page.length === PAGE_SIZE) next = read(page[page.length - 1]!.name);
      yield* page;
      if (page.length < PAGE_SIZE) return;
    }
  }
}
