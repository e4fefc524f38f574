import { ADDONS, type AddonName } from '../catalogue/catalogue';

/** The billing platform's domain statuses (docs/orders.md#domain-states-set-by-orders); docs/orders.md has the state machine. */
export const DOMAIN_STATUSES = [
  'Pending',
  'Pending Registration',
  'Pending Transfer',
  'Active',
  'Grace',
  'Redemption',
  'Expired',
  'Transferred Away',
  'Cancelled',
  'Fraud',
] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

/** Addons (docs/api.md#addons-field) as the platform holds them per domain. */
export interface DomainAddons {
  readonly dnsManagement: boolean;
  readonly emailForwarding: boolean;
  readonly idProtection: boolean;
}

export const NO_ADDONS: DomainAddons = Object.freeze({
  dnsManagement: false,
  emailForwarding: false,
  idProtection: false,
});

/** The domain record's flag for each addon as orders and prices name it. */
export const ADDON_FIELD = {
  dnsmanagement: 'dnsManagement',
  emailforwarding: 'emailForwarding',
  idprotection: 'idProtection',
} as const satisfies Record<AddonName, keyof DomainAddons>;

/** The addons a domain holds, by the names orders and prices use. */
export function heldAddons(addons: DomainAddons): AddonName[] {
  return ADDONS.filter((addon) => addons[ADDON_FIELD[addon]]);
}

/** A domain's flags for the addons an order names. */
export function domainAddonsOf(names: readonly string[]): DomainAddons {
  const flags = {} as Record<keyof DomainAddons, boolean>;
  for (const addon of ADDONS) flags[ADDON_FIELD[addon]] = names.includes(addon);
  return flags;
}

export interface DomainRecord {
  readonly id: string;
  /** ASCII (punycode) name, the key everywhere. */
  readonly name: string;
  readonly unicodeName: string;
  readonly tld: string;
  readonly resellerId: string;
  readonly registrar: string;
  readonly status: DomainStatus;
  /** YYYY-MM-DD, or null while unknown. */
  readonly expiryDate: string | null;
  /** The nameservers as last known (empty while unknown). */
  readonly nameservers: readonly string[];
  /** The registrar (transfer) lock as last known; null while unknown. */
  readonly transferLock: boolean | null;
  readonly addons: DomainAddons;
  /**
   * The registry's yearly premium costs when the platform sold the name as premium; absent for a
   * name sold at the catalogue price. A renewal or transfer of a premium name whose registrar
   * cannot tell its price is refused, never charged the catalogue price (docs/orders.md#premium-names).
   */
  readonly premiumCosts?: PremiumCosts;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** A registry's yearly premium costs of one name, in minor units, per action it priced. */
export interface PremiumCosts {
  readonly register?: number;
  readonly renew?: number;
  readonly transfer?: number;
}

/** A domain the platform starts holding (an order's domain, an import). */
export type NewDomain = Omit<DomainRecord, 'nameservers' | 'transferLock' | 'addons' | 'updatedAt'> & {
  readonly nameservers?: readonly string[];
  readonly transferLock?: boolean | null;
  readonly addons?: Partial<DomainAddons>;
};

/** What a registrar call taught the platform about a domain; fields left out stay as they are. */
export interface DomainChanges {
  readonly status?: DomainStatus;
  readonly expiryDate?: string | null;
  readonly nameservers?: readonly string[];
  readonly transferLock?: boolean | null;
  readonly addons?: Partial<DomainAddons>;
}

export interface DomainListFilter {
  readonly resellerId?: string;
  readonly limit?: number;
}

/** How a page of domains is sorted: by name, or soonest expiry first (unknown expiry last), then name. */
export type DomainSort = 'name' | 'expiry';

/** Where a sorted list of domains continues: the last row's sort key. */
export type DomainKey =
  | { readonly sort: 'name'; readonly name: string }
  | { readonly sort: 'expiry'; readonly expiryDate: string | null; readonly name: string };

/** One page of domains (src/core/reseller/account-lists.ts makes it; the console may leave `resellerId` out). */
export interface DomainQuery {
  readonly resellerId?: string;
  readonly statuses?: readonly DomainStatus[];
  /** ASCII TLD with its dot, like `.com`. */
  readonly tld?: string;
  /** Expiry date (YYYY-MM-DD) from `expiresFrom` to `expiresBy`, both included; a domain without one does not match. */
  readonly expiresFrom?: string;
  readonly expiresBy?: string;
  /** Part of the name, lower case, matched in the ASCII and the Unicode form. */
  readonly search?: string;
  readonly sort: DomainSort;
  readonly after?: DomainKey;
  readonly limit: number;
}

/** What an order changes on a domain row (src/core/order). */
export interface DomainOrderChange {
  readonly status: DomainStatus;
  readonly resellerId?: string;
  readonly registrar?: string;
  readonly expiryDate?: string | null;
  /** Stamps the domain synced at this time (the registrar's answer is what the row now says). */
  readonly syncedAt?: Date;
  /** The premium costs the order sold the name at (null: sold at the catalogue price). */
  readonly premiumCosts?: PremiumCosts | null;
  readonly at: Date;
}

export interface DomainRepository {
  findByName(name: string): Promise<DomainRecord | undefined>;
  list(filter: DomainListFilter): Promise<DomainRecord[]>;
  /** Up to `limit` domains matching the query, in its sort order, after its key (keyset paging). */
  page(query: DomainQuery): Promise<DomainRecord[]>;
  /** Throws on a name the platform already holds (the name is unique). */
  insert(domain: NewDomain): Promise<void>;
  /**
   * Applies the changes and stamps `updatedAt`. With `ifStatus`, applies them only while the
   * status is still that one, so a concurrent change (a delete, a reconciliation) is not
   * overwritten by an older view. Answers whether the row changed.
   */
  update(
    id: string,
    changes: DomainChanges,
    at: Date,
    options?: { readonly ifStatus?: DomainStatus },
  ): Promise<boolean>;
  /** Domains in the given statuses, by name, after `after` (keyset paging for batch work). */
  listByStatus(
    statuses: readonly DomainStatus[],
    page: { readonly after?: string; readonly limit: number },
  ): Promise<DomainRecord[]>;
  countByStatus(statuses: readonly DomainStatus[]): Promise<number>;
  /**
   * Orders: inserts the row of a domain being registered or transferred in. Returns false,
   * writing nothing, when a row with that name exists (a concurrent order won the name).
   */
  insertForOrder(domain: NewDomain): Promise<boolean>;
  /**
   * Orders: one conditional update, applied only while the row's status is one of `from` (and,
   * when given, it belongs to `resellerId`). Returns whether it applied.
   */
  transitionForOrder(
    id: string,
    from: readonly DomainStatus[],
    change: DomainOrderChange,
    resellerId?: string,
  ): Promise<boolean>;
  /**
   * Gives every domain of `fromResellerId` in one of `statuses` to `toResellerId` (closing a
   * reseller that hands its domains over), in one statement; answers how many moved.
   */
  moveHeld(fromResellerId: string, toResellerId: string, statuses: readonly DomainStatus[], at: Date): Promise<number>;
  /** Orders: removes the row a failed order created, only while it still has the order's pending status. */
  deleteForFailedOrder(id: string, status: DomainStatus): Promise<boolean>;
  /**
   * Claims up to `limit` domains due for a sync: in one of `statuses`, last synced before
   * `syncedBefore` (or never), not leased to a live claim, and without an order in progress (its
   * reconciliation settles the domain with the order). The claim is a lease held by
   * `owner` until `leaseUntil`, taken with a conditional update, so concurrent workers on any
   * number of processes never claim the same domain. Oldest sync first. Runs in a unit of work
   * (on MariaDB its rows are read `FOR UPDATE SKIP LOCKED`).
   */
  claimForSync(claim: SyncClaim): Promise<DomainRecord[]>;
  /** Ends `owner`'s lease on the domain; `syncedAt` stamps it synced (null gives it back unsynced). */
  releaseSyncClaim(id: string, owner: string, syncedAt: Date | null): Promise<void>;
  /** `releaseSyncClaim` for many domains in one statement (a round stamps a whole batch at once). */
  releaseSyncClaims(ids: readonly string[], owner: string, syncedAt: Date | null): Promise<void>;
  /** How many domains a claim with these terms could take now (for progress lines). */
  countDueForSync(claim: Pick<SyncClaim, 'statuses' | 'syncedBefore' | 'now'>): Promise<number>;
  /** Keeps the registrar's answer to a sync of the domain, replacing the one before. */
  recordSyncAnswer(domainId: string, answer: SyncAnswer): Promise<void>;
  /** The registrar's last answer to a sync of the domain; undefined when it was never asked. */
  lastSyncAnswer(domainId: string): Promise<SyncAnswer | undefined>;
}

/** The registrar's last answer to a sync or transfer sync of a domain (state as data, shown in the console). */
export interface SyncAnswer {
  readonly kind: 'sync' | 'transfer_sync';
  readonly at: Date;
  /** The answer's fields (status flags, expiry date, a transfer's reason); null when the call failed. */
  readonly answer: Readonly<Record<string, string | boolean | null>> | null;
  /** Why the call failed (the registrar's message), or null. */
  readonly error: string | null;
}

export interface SyncClaim {
  readonly statuses: readonly DomainStatus[];
  readonly syncedBefore: Date;
  readonly now: Date;
  readonly leaseUntil: Date;
  /** Who holds the lease (a process and job), at most 64 characters. */
  readonly owner: string;
  readonly limit: number;
}
