/** The billing platform's domain statuses (decisions.md); docs/orders.md has the state machine. */
export const DOMAIN_STATUSES = [
  'Pending', 'Pending Registration', 'Pending Transfer', 'Active', 'Grace', 'Redemption',
  'Expired', 'Transferred Away', 'Cancelled', 'Fraud',
] as const;
export type DomainStatus = (typeof DOMAIN_STATUSES)[number];

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
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

export interface DomainListFilter {
  readonly resellerId?: string;
  readonly limit?: number;
}

/** What an order changes on a domain row (src/core/order). */
export interface DomainOrderChange {
  readonly status: DomainStatus;
  readonly resellerId?: string;
  readonly registrar?: string;
  readonly expiryDate?: string | null;
  readonly at: Date;
}

export interface DomainRepository {
  findByName(name: string): Promise<DomainRecord | undefined>;
  list(filter: DomainListFilter): Promise<DomainRecord[]>;
  /**
   * Orders: inserts the row of a domain being registered or transferred in. Returns false,
   * writing nothing, when a row with that name exists (a concurrent order won the name).
   */
  insertForOrder(domain: DomainRecord): Promise<boolean>;
  /**
   * Orders: one conditional update, applied only while the row's status is one of `from` (and,
   * when given, it belongs to `resellerId`). Returns whether it applied.
   */
  transitionForOrder(id: string, from: readonly DomainStatus[], change: DomainOrderChange, resellerId?: string): Promise<boolean>;
  /** Orders: removes the row a failed order created, only while it still has the order's pending status. */
  deleteForFailedOrder(id: string, status: DomainStatus): Promise<boolean>;
}
