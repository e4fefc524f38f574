import type { AuditEntry } from '../../../core/audit/audit-log';
import type { StoredLink } from '../../../core/auth/one-time-links';
import type { AddonName, OrderAction, PremiumQuote, Tld } from '../../../core/catalogue/catalogue';
import type { PremiumRule } from '../../../core/catalogue/premium';
import type { AnyPlatformEvent } from '../../../core/common/events';
import type { Minor } from '../../../core/common/money';
import type { LedgerEntry } from '../../../core/credit/ledger';
import type { DomainRecord, SyncAnswer } from '../../../core/domain/domain';
import type { OperatorRecord } from '../../../core/operator/operator';
import type { IdempotencyRecord, Order } from '../../../core/order/order';
import type { PortalLogin } from '../../../core/reseller/portal-logins';
import type { ResellerCredentials, ResellerGroup } from '../../../core/reseller/reseller';
import type { StoredEndpoint, WebhookDelivery } from '../../../core/webhooks/webhook';

/** A reseller row: the credentials plus the low-credit alert columns. */
export interface ResellerRow extends ResellerCredentials {
  lowCreditThreshold: Minor | null;
  isCreditLow: boolean;
}

/** A domain row: the record plus the sync columns the record does not show. */
export interface DomainRow extends DomainRecord {
  syncedAt: number | null;
  syncOwner: string | null;
  syncLeaseUntil: number | null;
}

export interface EventRow {
  readonly event: AnyPlatformEvent;
  claimUntil: number | null;
  dispatchedAt: number | null;
}

/** A webhook delivery row: the delivery plus the claim columns it does not show. */
export interface DeliveryRow extends WebhookDelivery {
  readonly claimToken: string | null;
  readonly claimUntil: number | null;
}

export interface DigestRow {
  status: 'sending' | 'sent' | 'failed';
  attempts: number;
  claimUntil: number | null;
  sentAt: number | null;
  lastError: string | null;
}

/**
 * The memory twin's tables, one map per table of the migrations, keyed by the table's primary
 * key. A transaction works on a copy (`structuredClone`) and replaces the committed tables when
 * it ends without throwing, so a transaction that throws leaves nothing behind, as a rollback does.
 */
export interface MemoryTables {
  groups: Map<string, ResellerGroup>;
  resellers: Map<string, ResellerRow>;
  tlds: Map<string, Tld>;
  /** `group tld action period` → price. */
  tldPrices: Map<string, { groupId: string; tld: string; action: OrderAction; period: number; price: Minor }>;
  /** `group addon` → price. */
  addonPrices: Map<string, { groupId: string; addon: AddonName; price: Minor }>;
  premiumRules: Map<string, PremiumRule>;
  /** `reseller domain action` → quote. */
  premiumQuotes: Map<string, PremiumQuote>;
  /** reseller id → balance. */
  accounts: Map<string, Minor>;
  entries: Map<string, LedgerEntry>;
  domains: Map<string, DomainRow>;
  syncAnswers: Map<string, SyncAnswer>;
  orders: Map<string, Order>;
  /** `reseller key` → record. */
  idempotency: Map<string, IdempotencyRecord>;
  events: Map<string, EventRow>;
  routingVersion: number;
  webhookEndpoints: Map<string, StoredEndpoint>;
  webhookDeliveries: Map<string, DeliveryRow>;
  /** `domain expiry days` → recorded at. */
  expiryNotices: Map<string, number>;
  /** `reseller day` → digest. */
  expiryDigests: Map<string, DigestRow>;
  audit: Map<string, AuditEntry>;
  operators: Map<string, OperatorRecord & { totpLastStep: number | null }>;
  portalLogins: Map<string, PortalLogin & { totpLastStep: number | null }>;
  links: Map<string, StoredLink & { usedAt: number | null }>;
}

export function emptyTables(): MemoryTables {
  return {
    groups: new Map(),
    resellers: new Map(),
    tlds: new Map(),
    tldPrices: new Map(),
    addonPrices: new Map(),
    premiumRules: new Map(),
    premiumQuotes: new Map(),
    accounts: new Map(),
    entries: new Map(),
    domains: new Map(),
    syncAnswers: new Map(),
    orders: new Map(),
    idempotency: new Map(),
    events: new Map(),
    routingVersion: 0,
    webhookEndpoints: new Map(),
    webhookDeliveries: new Map(),
    expiryNotices: new Map(),
    expiryDigests: new Map(),
    audit: new Map(),
    operators: new Map(),
    portalLogins: new Map(),
    links: new Map(),
  };
}

/** Where a unit of work's repositories find the tables: the committed ones, or a transaction's copy. */
export interface TablesRef {
  readonly tables: MemoryTables;
}

/**
 * A unique, primary key or foreign key violation, carrying MariaDB's code and errno, so code that
 * tells a duplicate apart (`isUniqueViolation`) treats it as it treats the database's.
 */
export class ConstraintViolation extends Error {
  readonly code: string;
  readonly errno: number;
  constructor(kind: 'unique' | 'foreign key', what: string) {
    super(`memory twin: ${kind} constraint violated: ${what}`);
    this.code = kind === 'unique' ? 'ER_DUP_ENTRY' : 'ER_NO_REFERENCED_ROW_2';
    this.errno = kind === 'unique' ? 1062 : 1452;
  }
}

/** Keys of several columns. */
export const key = (...parts: ReadonlyArray<string | number>): string => parts.join('\u0000');

/**
 * The unique columns are compared as MariaDB's utf8mb4_unicode_ci compares them (case folded):
 * the twin refuses what either engine refuses.
 */
export const folded = (text: string): string => text.toLowerCase();

export function assertUnique(taken: boolean, what: string): void {
  if (taken) throw new ConstraintViolation('unique', what);
}

export function assertReferenced(present: boolean, what: string): void {
  if (!present) throw new ConstraintViolation('foreign key', what);
}

/**
 * Money is integer minor units in BIGINT columns. SQLite would keep a fraction and MariaDB would
 * round it; the twin refuses it, so a rule that computes a fraction fails here first.
 */
export function assertMinor(value: number, what: string): Minor {
  if (!Number.isSafeInteger(value))
    throw new TypeError(`memory twin: ${what} must be integer minor units, got ${value}`);
  return value;
}

/** A copy of what is stored or answered, so no caller shares an object with the tables. */
export const copy = <T>(value: T): T => structuredClone(value);

/** Compares two strings as ORDER BY does for the ASCII keys the tables sort by (ids, names, dates). */
export const byText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);
