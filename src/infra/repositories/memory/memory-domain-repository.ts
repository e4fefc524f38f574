import type {
  DomainChanges,
  DomainListFilter,
  DomainOrderChange,
  DomainQuery,
  DomainRecord,
  DomainRepository,
  DomainStatus,
  NewDomain,
  PremiumCosts,
  SyncAnswer,
  SyncClaim,
} from '../../../core/domain/domain';
import {
  assertReferenced,
  assertUnique,
  byText,
  copy,
  type DomainRow,
  folded,
  type MemoryTables,
  type TablesRef,
} from './memory-tables';

const UNKNOWN_EXPIRY_SORTS_AS = '9999-12-31';
const COST_ACTIONS = ['register', 'renew', 'transfer'] as const;

/** As the JSON column reads back: only whole, positive costs. */
function storedCosts(costs: PremiumCosts): PremiumCosts {
  const kept: Record<string, number> = {};
  for (const action of COST_ACTIONS) {
    const cost = costs[action];
    if (Number.isSafeInteger(cost) && (cost as number) > 0) kept[action] = cost as number;
  }
  return kept;
}

function toRecord({ syncedAt: _s, syncOwner: _o, syncLeaseUntil: _l, premiumCosts, ...row }: DomainRow): DomainRecord {
  return copy({ ...row, ...(premiumCosts && { premiumCosts: storedCosts(premiumCosts) }) });
}

/**
 * Due for a sync: in one of the statuses, not synced since `syncedBefore`, not leased to a live
 * claim, and without an open order (as KnexDomainRepository's `dueForSync`).
 */
function isDue(t: MemoryTables, row: DomainRow, statuses: readonly DomainStatus[], syncedBefore: Date, now: number) {
  return (
    statuses.includes(row.status) &&
    (row.syncedAt === null || row.syncedAt < syncedBefore.getTime()) &&
    (row.syncLeaseUntil === null || row.syncLeaseUntil <= now) &&
    ![...t.orders.values()].some((o) => o.status === 'pending' && o.domain === row.name)
  );
}

/** The twin of KnexDomainRepository: `domains` with its unique name and reseller key, and `domain_sync_answers`. */
export class MemoryDomainRepository implements DomainRepository {
  constructor(private readonly ref: TablesRef) {}

  private get t() {
    return this.ref.tables;
  }

  private get rows() {
    return this.ref.tables.domains;
  }

  async findByName(name: string): Promise<DomainRecord | undefined> {
    const row = this.byName(name);
    return row && toRecord(row);
  }

  async list(filter: DomainListFilter): Promise<DomainRecord[]> {
    return [...this.rows.values()]
      .filter((d) => !filter.resellerId || d.resellerId === filter.resellerId)
      .sort((a, b) => byText(a.name, b.name))
      .slice(0, filter.limit ?? 10_000)
      .map(toRecord);
  }

  async page(q: DomainQuery): Promise<DomainRecord[]> {
    const expiry = (d: { expiryDate: string | null }) => d.expiryDate ?? UNKNOWN_EXPIRY_SORTS_AS;
    const search = q.search?.toLowerCase();
    const after = q.after;
    return [...this.rows.values()]
      .filter(
        (d) =>
          (q.resellerId === undefined || d.resellerId === q.resellerId) &&
          (!q.statuses || q.statuses.length === 0 || q.statuses.includes(d.status)) &&
          (q.tld === undefined || d.tld === q.tld) &&
          (q.expiresFrom === undefined || (d.expiryDate !== null && d.expiryDate >= q.expiresFrom)) &&
          (q.expiresBy === undefined || (d.expiryDate !== null && d.expiryDate <= q.expiresBy)) &&
          (!search || d.name.toLowerCase().includes(search) || d.unicodeName.toLowerCase().includes(search)),
      )
      .filter((d) => {
        if (!after) return true;
        if (q.sort === 'name') return d.name > after.name;
        if (after.sort !== 'expiry') return true;
        const at = after.expiryDate ?? UNKNOWN_EXPIRY_SORTS_AS;
        return expiry(d) > at || (expiry(d) === at && d.name > after.name);
      })
      .sort((a, b) =>
        q.sort === 'name' ? byText(a.name, b.name) : byText(expiry(a), expiry(b)) || byText(a.name, b.name),
      )
      .slice(0, q.limit)
      .map(toRecord);
  }

  async insert(d: NewDomain): Promise<void> {
    assertUnique(this.rows.has(d.id), `domains.id ${d.id}`);
    assertUnique(this.byName(d.name, true) !== undefined, `domains.name ${d.name}`);
    assertReferenced(this.t.resellers.has(d.resellerId), `domains.reseller_id ${d.resellerId}`);
    const { premiumCosts, ...rest } = copy(d);
    this.rows.set(d.id, {
      ...rest,
      nameservers: rest.nameservers ?? [],
      transferLock: rest.transferLock ?? null,
      addons: {
        dnsManagement: rest.addons?.dnsManagement ?? false,
        emailForwarding: rest.addons?.emailForwarding ?? false,
        idProtection: rest.addons?.idProtection ?? false,
      },
      ...(premiumCosts && { premiumCosts }),
      updatedAt: new Date(d.createdAt.getTime()),
      syncedAt: null,
      syncOwner: null,
      syncLeaseUntil: null,
    });
  }

  async update(
    id: string,
    changes: DomainChanges,
    at: Date,
    options: { readonly ifStatus?: DomainStatus } = {},
  ): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || (options.ifStatus !== undefined && row.status !== options.ifStatus)) return false;
    const c = copy(changes);
    this.rows.set(id, {
      ...row,
      ...(c.status !== undefined && { status: c.status }),
      ...(c.expiryDate !== undefined && { expiryDate: c.expiryDate }),
      ...(c.nameservers !== undefined && { nameservers: c.nameservers }),
      ...(c.transferLock !== undefined && { transferLock: c.transferLock }),
      addons: {
        dnsManagement: c.addons?.dnsManagement ?? row.addons.dnsManagement,
        emailForwarding: c.addons?.emailForwarding ?? row.addons.emailForwarding,
        idProtection: c.addons?.idProtection ?? row.addons.idProtection,
      },
      updatedAt: new Date(at.getTime()),
    });
    return true;
  }

  async listByStatus(
    statuses: readonly DomainStatus[],
    page: { readonly after?: string; readonly limit: number },
  ): Promise<DomainRecord[]> {
    return [...this.rows.values()]
      .filter((d) => statuses.includes(d.status) && (page.after === undefined || d.name > page.after))
      .sort((a, b) => byText(a.name, b.name))
      .slice(0, page.limit)
      .map(toRecord);
  }

  async countByStatus(statuses: readonly DomainStatus[]): Promise<number> {
    return [...this.rows.values()].filter((d) => statuses.includes(d.status)).length;
  }

  async insertForOrder(d: NewDomain): Promise<boolean> {
    if (this.byName(d.name, true) !== undefined) return false;
    await this.insert(d);
    return true;
  }

  async transitionForOrder(
    id: string,
    from: readonly DomainStatus[],
    change: DomainOrderChange,
    resellerId?: string,
  ): Promise<boolean> {
    const row = this.rows.get(id);
    if (!row || !from.includes(row.status) || (resellerId !== undefined && row.resellerId !== resellerId)) return false;
    if (change.resellerId !== undefined)
      assertReferenced(this.t.resellers.has(change.resellerId), `domains.reseller_id ${change.resellerId}`);
    const next: DomainRow = {
      ...row,
      status: change.status,
      ...(change.resellerId !== undefined && { resellerId: change.resellerId }),
      ...(change.registrar !== undefined && { registrar: change.registrar }),
      ...(change.expiryDate !== undefined && { expiryDate: change.expiryDate }),
      ...(change.syncedAt !== undefined && { syncedAt: change.syncedAt.getTime() }),
      updatedAt: new Date(change.at.getTime()),
    };
    if (change.premiumCosts !== undefined) {
      const { premiumCosts: _old, ...without } = next;
      this.rows.set(id, change.premiumCosts ? { ...without, premiumCosts: copy(change.premiumCosts) } : without);
    } else this.rows.set(id, next);
    return true;
  }

  async moveHeld(
    fromResellerId: string,
    toResellerId: string,
    statuses: readonly DomainStatus[],
    at: Date,
  ): Promise<number> {
    const moving = [...this.rows.values()].filter(
      (d) => d.resellerId === fromResellerId && statuses.includes(d.status),
    );
    if (moving.length > 0) assertReferenced(this.t.resellers.has(toResellerId), `domains.reseller_id ${toResellerId}`);
    for (const d of moving) this.rows.set(d.id, { ...d, resellerId: toResellerId, updatedAt: new Date(at.getTime()) });
    return moving.length;
  }

  async deleteForFailedOrder(id: string, status: DomainStatus): Promise<boolean> {
    if (this.rows.get(id)?.status !== status) return false;
    this.rows.delete(id);
    return true;
  }

  async claimForSync(claim: SyncClaim): Promise<DomainRecord[]> {
    if (claim.statuses.length === 0 || claim.limit < 1) return [];
    const now = claim.now.getTime();
    const found: DomainRow[] = [];
    for (const status of claim.statuses) {
      if (found.length >= claim.limit) break;
      const due = [...this.rows.values()]
        .filter((d) => isDue(this.t, d, [status], claim.syncedBefore, now))
        // NULL first, as ORDER BY synced_at ASC sorts it on both engines.
        .sort((a, b) => (a.syncedAt ?? -Infinity) - (b.syncedAt ?? -Infinity) || byText(a.name, b.name))
        .slice(0, claim.limit - found.length);
      found.push(...due);
    }
    for (const d of found)
      this.rows.set(d.id, { ...d, syncOwner: claim.owner, syncLeaseUntil: claim.leaseUntil.getTime() });
    return found.map((d) => toRecord(this.rows.get(d.id)!));
  }

  async releaseSyncClaim(id: string, owner: string, syncedAt: Date | null): Promise<void> {
    await this.releaseSyncClaims([id], owner, syncedAt);
  }

  async releaseSyncClaims(ids: readonly string[], owner: string, syncedAt: Date | null): Promise<void> {
    for (const id of ids) {
      const row = this.rows.get(id);
      if (!row || row.syncOwner !== owner) continue;
      this.rows.set(id, {
        ...row,
        syncOwner: null,
        syncLeaseUntil: null,
        ...(syncedAt && { syncedAt: syncedAt.getTime() }),
      });
    }
  }

  async countDueForSync(claim: Pick<SyncClaim, 'statuses' | 'syncedBefore' | 'now'>): Promise<number> {
    const now = claim.now.getTime();
    return [...this.rows.values()].filter((d) => isDue(this.t, d, claim.statuses, claim.syncedBefore, now)).length;
  }

  async recordSyncAnswer(domainId: string, answer: SyncAnswer): Promise<void> {
    this.t.syncAnswers.set(domainId, copy({ ...answer, error: answer.error?.slice(0, 500) ?? null }));
  }

  async lastSyncAnswer(domainId: string): Promise<SyncAnswer | undefined> {
    return copy(this.t.syncAnswers.get(domainId));
  }

  private byName(name: string, caseFolded = false): DomainRow | undefined {
    for (const row of this.rows.values())
      if (caseFolded ? folded(row.name) === folded(name) : row.name === name) return row;
    return undefined;
  }
}
