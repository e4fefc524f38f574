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

export interface DomainRepository {
  findByName(name: string): Promise<DomainRecord | undefined>;
  list(filter: DomainListFilter): Promise<DomainRecord[]>;
}
