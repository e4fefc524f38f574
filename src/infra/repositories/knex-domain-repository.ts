import type { Knex } from 'knex';
import type { Db } from '../db/db';
import type {
  DomainChanges,
  DomainListFilter,
  DomainQuery,
  DomainOrderChange,
  DomainRecord,
  DomainRepository,
  DomainStatus,
  NewDomain,
  PremiumCosts,
  SyncClaim,
  SyncAnswer,
} from '../../core/domain/domain';
import { databaseKind } from '../db/database-kind';
import { insertUnlessPresent } from './insert-unless-present';
import { rowInsert, type StatementText, StatementTexts } from '../db/statement-text';

export interface DomainRow {
  id: string;
  name: string;
  unicode_name: string;
  tld: string;
  reseller_id: string;
  registrar: string;
  status: string;
  expiry_date: string | null;
  created_at: number | string;
  updated_at: number | string;
  nameservers: string | null;
  transfer_lock: number | boolean | null;
  dns_management: number | boolean;
  email_forwarding: number | boolean;
  id_protection: number | boolean;
  premium_costs?: string | null;
}

const bool = (value: number | boolean | string | null | undefined) => value === true || Number(value) === 1;

const parseNameservers = (text: string | null): string[] => {
  if (!text) return [];
  try {
    const list = JSON.parse(text);
    return Array.isArray(list) ? list.filter((n): n is string => typeof n === 'string') : [];
  } catch {
    return [];
  }
};

const COST_ACTIONS = ['register', 'renew', 'transfer'] as const;

/** Only whole, positive costs are read back: the column is ours, but a hand edit must not price a name. */
const parsePremiumCosts = (text: string | null | undefined): PremiumCosts | undefined => {
  if (!text) return undefined;
  let stored: unknown;
  try {
    stored = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof stored !== 'object' || stored === null) return undefined;
  const costs: Record<string, number> = {};
  for (const action of COST_ACTIONS) {
    const cost = (stored as Record<string, unknown>)[action];
    if (Number.isSafeInteger(cost) && (cost as number) > 0) costs[action] = cost as number;
  }
  return costs;
};

const premiumCostsColumn = (costs: PremiumCosts | null | undefined) => (costs ? JSON.stringify(costs) : null);

export const toDomain = (row: DomainRow): DomainRecord => ({
  id: row.id,
  name: row.name,
  unicodeName: row.unicode_name,
  tld: row.tld,
  resellerId: row.reseller_id,
  registrar: row.registrar,
  status: row.status as DomainStatus,
  expiryDate: row.expiry_date,
  nameservers: parseNameservers(row.nameservers),
  transferLock: row.transfer_lock === null || row.transfer_lock === undefined ? null : bool(row.transfer_lock),
  addons: {
    dnsManagement: bool(row.dns_management),
    emailForwarding: bool(row.email_forwarding),
    idProtection: bool(row.id_protection),
  },
  ...(row.premium_costs && { premiumCosts: parsePremiumCosts(row.premium_costs) }),
  createdAt: new Date(Number(row.created_at)),
  updatedAt: new Date(Number(row.updated_at)),
});

/** Only the columns a change names; the rest stay as they are. */
function changedColumns(changes: DomainChanges): Record<string, unknown> {
  const columns: Record<string, unknown> = {};
  if (changes.status !== undefined) columns.status = changes.status;
  if (changes.expiryDate !== undefined) columns.expiry_date = changes.expiryDate;
  if (changes.nameservers !== undefined) columns.nameservers = JSON.stringify(changes.nameservers);
  if (changes.transferLock !== undefined) columns.transfer_lock = changes.transferLock;
  if (changes.addons?.dnsManagement !== undefined) columns.dns_management = changes.addons.dnsManagement;
  if (changes.addons?.emailForwarding !== undefined) columns.email_forwarding = changes.addons.emailForwarding;
  if (changes.addons?.idProtection !== undefined) columns.id_protection = changes.addons.idProtection;
  return columns;
}

export class KnexDomainRepository implements DomainRepository {
  constructor(private readonly db: Db) {}

  async findByName(name: string): Promise<DomainRecord | undefined> {
    const row = await this.db<DomainRow>('domains').where({ name }).first();
    return row && toDomain(row);
  }

  async list(filter: DomainListFilter): Promise<DomainRecord[]> {
    const query = this.db<DomainRow>('domains')
      .orderBy('name')
      .limit(filter.limit ?? 10_000);
    if (filter.resellerId) query.where({ reseller_id: filter.resellerId });
    return (await query).map(toDomain);
  }

  async page(q: DomainQuery): Promise<DomainRecord[]> {
    const query = this.db<DomainRow>('domains').limit(q.limit);
    if (q.resellerId !== undefined) query.where({ reseller_id: q.resellerId });
    if (q.statuses && q.statuses.length > 0) query.whereIn('status', [...q.statuses]);
    if (q.tld !== undefined) query.where({ tld: q.tld });
    if (q.expiresFrom !== undefined) query.where('expiry_date', '>=', q.expiresFrom);
    if (q.expiresBy !== undefined) query.where('expiry_date', '<=', q.expiresBy);
    if (q.search) {
      const pattern = `%${likeEscaped(q.search)}%`;
      query.where((w) =>
        w.whereRaw(`name like ? escape '!'`, [pattern]).orWhereRaw(`unicode_name like ? escape '!'`, [pattern]),
      );
    }
    if (q.sort === 'name') {
      query.orderBy('name');
      if (q.after) query.where('name', '>', q.after.name);
    } else {
      // A domain whose expiry is unknown sorts after every known one.
      const expiry = `coalesce(expiry_date, '${UNKNOWN_EXPIRY_SORTS_AS}')`;
      query.orderByRaw(`${expiry} asc, name asc`);
      if (q.after?.sort === 'expiry') {
        const at = q.after.expiryDate ?? UNKNOWN_EXPIRY_SORTS_AS;
        query.where((w) =>
          w
            .whereRaw(`${expiry} > ?`, [at])
            .orWhere((x) => x.whereRaw(`${expiry} = ?`, [at]).where('name', '>', q.after!.name)),
        );
      }
    }
    return (await query).map(toDomain);
  }

  async insert(d: NewDomain): Promise<void> {
    await this.db('domains').insert(newDomainRow(d));
  }

  async update(
    id: string,
    changes: DomainChanges,
    at: Date,
    options: { ifStatus?: DomainStatus } = {},
  ): Promise<boolean> {
    const query = this.db('domains').where({ id });
    if (options.ifStatus !== undefined) query.andWhere({ status: options.ifStatus });
    const updated = await query.update({ ...changedColumns(changes), updated_at: at.getTime() });
    return updated > 0;
  }

  async listByStatus(
    statuses: readonly DomainStatus[],
    page: { after?: string; limit: number },
  ): Promise<DomainRecord[]> {
    if (statuses.length === 0) return [];
    const query = this.db<DomainRow>('domains')
      .whereIn('status', [...statuses])
      .orderBy('name')
      .limit(page.limit);
    if (page.after !== undefined) query.andWhere('name', '>', page.after);
    return (await query).map(toDomain);
  }

  async countByStatus(statuses: readonly DomainStatus[]): Promise<number> {
    if (statuses.length === 0) return 0;
    const row = await this.db('domains')
      .whereIn('status', [...statuses])
      .count({ n: '*' })
      .first();
    return Number(row?.n ?? 0);
  }

  async insertForOrder(d: NewDomain): Promise<boolean> {
    const { sql, bindings } = INSERT_DOMAIN.text(this.db, 'row', newDomainRow(d));
    return insertUnlessPresent(this.db.raw(sql, bindings as Knex.RawBinding[]));
  }

  async transitionForOrder(
    id: string,
    from: readonly DomainStatus[],
    change: DomainOrderChange,
    resellerId?: string,
  ): Promise<boolean> {
    return (await transitionForOrderQuery(this.db, id, from, change, resellerId)) === 1;
  }

  async moveHeld(
    fromResellerId: string,
    toResellerId: string,
    statuses: readonly DomainStatus[],
    at: Date,
  ): Promise<number> {
    if (statuses.length === 0) return 0;
    return this.db('domains')
      .where({ reseller_id: fromResellerId })
      .whereIn('status', [...statuses])
      .update({ reseller_id: toResellerId, updated_at: at.getTime() });
  }

  async deleteForFailedOrder(id: string, status: DomainStatus): Promise<boolean> {
    return (await this.db('domains').where({ id, status }).delete()) === 1;
  }

  async claimForSync(claim: SyncClaim): Promise<DomainRecord[]> {
    if (claim.statuses.length === 0 || claim.limit < 1) return [];
    const now = claim.now.getTime();
    const due = (query: Knex.QueryBuilder, statuses: readonly DomainStatus[] = claim.statuses) =>
      dueForSync(query, statuses, claim.syncedBefore, now);
    const take = async (db: Db, ids: string[]) => {
      if (ids.length === 0) return;
      // The due conditions again: the update itself decides, so a worker that lost the race takes nothing.
      await due(db('domains').whereIn('id', ids)).update({
        sync_owner: claim.owner,
        sync_lease_until: claim.leaseUntil.getTime(),
      } as Record<string, unknown>);
    };
    // One status at a time, oldest sync first, read in the order of the (status, synced_at, name)
    // index: the first `limit` due rows are found without sorting every due domain, so a claim
    // costs the same with 100,000 domains as with 100.
    const candidates = async (db: Db, lock: boolean) => {
      const found: string[] = [];
      for (const status of claim.statuses) {
        if (found.length >= claim.limit) break;
        const query = due(db('domains').select('id'), [status])
          .orderBy([
            { column: 'synced_at', order: 'asc' },
            { column: 'name', order: 'asc' },
          ])
          .limit(claim.limit - found.length);
        const rows: Array<{ id: string }> = await (lock ? query.forUpdate().skipLocked() : query);
        found.push(...rows.map((r) => r.id));
      }
      return found;
    };
    // MariaDB: rows another worker is claiming at this moment are skipped rather than waited for
    // (the caller's unit of work holds the locks until the claim commits).
    const ids = await candidates(this.db, databaseKind(this.db) === 'mysql');
    await take(this.db, ids);
    if (ids.length === 0) return [];
    const rows: DomainRow[] = await this.db('domains')
      .whereIn('id', ids)
      .andWhere({ sync_owner: claim.owner, sync_lease_until: claim.leaseUntil.getTime() });
    const byId = new Map(rows.map((row) => [row.id, toDomain(row)]));
    return ids.flatMap((id) => byId.get(id) ?? []);
  }

  async releaseSyncClaims(ids: readonly string[], owner: string, syncedAt: Date | null): Promise<void> {
    if (ids.length === 0) return;
    await this.db('domains')
      .whereIn('id', [...ids])
      .andWhere({ sync_owner: owner })
      .update({
        sync_owner: null,
        sync_lease_until: null,
        ...(syncedAt ? { synced_at: syncedAt.getTime() } : {}),
      });
  }

  async releaseSyncClaim(id: string, owner: string, syncedAt: Date | null): Promise<void> {
    await this.db('domains')
      .where({ id, sync_owner: owner })
      .update({
        sync_owner: null,
        sync_lease_until: null,
        ...(syncedAt ? { synced_at: syncedAt.getTime() } : {}),
      });
  }

  async countDueForSync(claim: Pick<SyncClaim, 'statuses' | 'syncedBefore' | 'now'>): Promise<number> {
    if (claim.statuses.length === 0) return 0;
    const row = await dueForSync(this.db('domains'), claim.statuses, claim.syncedBefore, claim.now.getTime())
      .count({ n: '*' })
      .first();
    return Number(row?.n ?? 0);
  }

  async recordSyncAnswer(domainId: string, answer: SyncAnswer): Promise<void> {
    // Insert or replace in one statement on both engines (SQLite's ON CONFLICT, MariaDB's ON DUPLICATE KEY).
    await this.db('domain_sync_answers')
      .insert({
        domain_id: domainId,
        kind: answer.kind,
        at: answer.at.getTime(),
        answer: answer.answer === null ? null : JSON.stringify(answer.answer),
        error: answer.error?.slice(0, 500) ?? null,
      })
      .onConflict('domain_id')
      .merge(['kind', 'at', 'answer', 'error']);
  }

  async lastSyncAnswer(domainId: string): Promise<SyncAnswer | undefined> {
    const row = await this.db('domain_sync_answers').where({ domain_id: domainId }).first();
    if (!row) return undefined;
    return {
      kind: row.kind,
      at: new Date(Number(row.at)),
      answer: row.answer === null ? null : JSON.parse(row.answer),
      error: row.error,
    };
  }
}

/**
 * Domains due for a sync: in one of the statuses, not synced since `syncedBefore`, not leased to
 * a live claim, and without an order in progress (the order's reconciliation settles those).
 */
function dueForSync(
  query: Knex.QueryBuilder,
  statuses: readonly DomainStatus[],
  syncedBefore: Date,
  now: number,
): Knex.QueryBuilder {
  return query
    .whereIn('domains.status', [...statuses])
    .andWhere((q) => q.whereNull('domains.synced_at').orWhere('domains.synced_at', '<', syncedBefore.getTime()))
    .andWhere((q) => q.whereNull('domains.sync_lease_until').orWhere('domains.sync_lease_until', '<=', now))
    .whereNotExists((q) => q.select(q.client.raw('1')).from('orders').whereRaw('orders.open_domain = domains.name'));
}

const UNKNOWN_EXPIRY_SORTS_AS = '9999-12-31';

/** A LIKE pattern's text with its wildcards taken literally (escape character `!`, the same on SQLite and MariaDB). */
function likeEscaped(text: string): string {
  return text.replace(/[!%_]/g, (c) => `!${c}`);
}

/** A new domain's insert, its text built by knex once per dialect (src/infra/db/statement-text.ts). */
const INSERT_DOMAIN = rowInsert<keyof ReturnType<typeof newDomainRow>>('domains');

function newDomainRow(d: NewDomain) {
  return {
    id: d.id,
    name: d.name,
    unicode_name: d.unicodeName,
    tld: d.tld,
    reseller_id: d.resellerId,
    registrar: d.registrar,
    status: d.status,
    expiry_date: d.expiryDate,
    nameservers: JSON.stringify(d.nameservers ?? []),
    transfer_lock: d.transferLock ?? null,
    dns_management: d.addons?.dnsManagement ?? false,
    email_forwarding: d.addons?.emailForwarding ?? false,
    id_protection: d.addons?.idProtection ?? false,
    premium_costs: premiumCostsColumn(d.premiumCosts),
    created_at: d.createdAt.getTime(),
    updated_at: d.createdAt.getTime(),
  };
}

/** `transitionForOrder`'s one conditional update, built and not sent. */
export function transitionForOrderQuery(
  db: Db,
  id: string,
  from: readonly DomainStatus[],
  change: DomainOrderChange,
  resellerId?: string,
): Knex.QueryBuilder<object, number> {
  return transitionQuery(db, id, from, resellerId, transitionColumns(change));
}

/** The same statement as text, its text built by knex once per shape (the order repository sends it with the order's settlement). */
export function transitionForOrderText(
  db: Db,
  id: string,
  from: readonly DomainStatus[],
  change: DomainOrderChange,
  resellerId?: string,
): StatementText {
  const columns = transitionColumns(change);
  const values: Record<string, unknown> = { id, resellerId };
  for (let i = 0; i < from.length; i++) values[`from${i}`] = from[i];
  for (const column in columns) values[column] = columns[column];
  const shape = `${from.length}:${resellerId !== undefined}:${Object.keys(columns).join(',')}`;
  return TRANSITION.text(db, shape, values);
}

/** Built from the first call of a shape: its `from<i>` statuses in order, its reseller if any, and the columns it sets. */
const TRANSITION = new StatementTexts<string>((db, value, _shape, values) => {
  const from: string[] = [];
  const columns: Record<string, unknown> = {};
  for (const name of Object.keys(values)) {
    if (name.startsWith('from')) from.push(value(name));
    else if (name !== 'id' && name !== 'resellerId') columns[name] = value(name);
  }
  const resellerId = values.resellerId !== undefined ? value('resellerId') : undefined;
  return transitionQuery(db, value('id'), from, resellerId, columns);
});

function transitionQuery(
  db: Db,
  id: string,
  from: readonly string[],
  resellerId: string | undefined,
  columns: Record<string, unknown>,
): Knex.QueryBuilder<object, number> {
  const query = db('domains')
    .where({ id })
    .whereIn('status', [...from]);
  if (resellerId !== undefined) query.andWhere({ reseller_id: resellerId });
  return query.update(columns);
}

/** What an order's move sets on its domain. */
function transitionColumns(change: DomainOrderChange): Record<string, unknown> {
  return {
    status: change.status,
    ...(change.resellerId !== undefined && { reseller_id: change.resellerId }),
    ...(change.registrar !== undefined && { registrar: change.registrar }),
    ...(change.expiryDate !== undefined && { expiry_date: change.expiryDate }),
    ...(change.syncedAt !== undefined && { synced_at: change.syncedAt.getTime() }),
    ...(change.premiumCosts !== undefined && { premium_costs: premiumCostsColumn(change.premiumCosts) }),
    updated_at: change.at.getTime(),
  };
}
