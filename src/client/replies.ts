/**
 * The reply shapes of every operation (docs/api.md#operations), with the
 * small checks that turn an unexpected answer into an `invalid_reply` error instead of a wrong value.
 */

/** Thrown by the checks below; the client turns it into a `ResellerApiError` of kind `invalid_reply`. */
export class ReplyShapeError extends Error {}

type Json = unknown;

const fail = (what: string): never => {
  throw new ReplyShapeError(what);
};

const isObject = (v: Json): v is Record<string, Json> => typeof v === 'object' && v !== null && !Array.isArray(v);

export function expectString(value: Json, what: string): string {
  return typeof value === 'string' ? value : fail(`${what} should be a JSON string`);
}

/** A decimal amount as the API writes it: `"123.45"`. */
export function expectAmount(value: Json, what: string): string {
  const text = expectString(value, what);
  return /^-?\d+(\.\d+)?$/.test(text) ? text : fail(`${what} should be a decimal amount, got "${text.slice(0, 40)}"`);
}

export function expectStringArray(value: Json, what: string): string[] {
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string'))
    fail(`${what} should be a JSON array of strings`);
  return value as string[];
}

function expectObject(value: Json, what: string): Record<string, Json> {
  return isObject(value) ? value : fail(`${what} should be a JSON object`);
}

function expectArrayOf<T>(value: Json, what: string, each: (item: Json, what: string) => T): T[] {
  if (!Array.isArray(value)) fail(`${what} should be a JSON array`);
  return (value as Json[]).map((item, i) => each(item, `${what}[${i}]`));
}

function bool(obj: Record<string, Json>, key: string, what: string, required = true): boolean | undefined {
  const v = obj[key];
  if (v === undefined && !required) return undefined;
  return typeof v === 'boolean' ? v : fail(`${what}.${key} should be true or false`);
}

function str(obj: Record<string, Json>, key: string, what: string, required = true): string | undefined {
  const v = obj[key];
  if ((v === undefined || v === null) && !required) return undefined;
  return typeof v === 'string' ? v : fail(`${what}.${key} should be a string`);
}

function num(obj: Record<string, Json>, key: string, what: string, required = true): number | undefined {
  const v = obj[key];
  if (v === undefined && !required) return undefined;
  return typeof v === 'number' && Number.isFinite(v) ? v : fail(`${what}.${key} should be a number`);
}

/** Plain success: the JSON string `success`. */
export function expectSuccess(value: Json, what: string): void {
  if (value === 'success') return;
  if (isObject(value) && value.success === true) return;
  fail(`${what} should be "success"`);
}

/**
 * What register, renew and transfer resolve with (docs/api.md#order-id-and-status): the order the
 * call placed, from the reply's `Order-Id` and `Order-Status` headers. Both are null only from a
 * server that does not send them (one older than these headers): the order was still placed.
 */
export interface PlacedOrder {
  readonly orderId: string | null;
  readonly status: OrderStatusReply | null;
}

/** The paid calls' reply: the body "success", and the order in the headers. */
export function expectPlacedOrder(value: Json, what: string, headers: ReplyHeaders): PlacedOrder {
  expectSuccess(value, what);
  const orderId = headers.get('order-id');
  const status = headers.get('order-status');
  if (status !== null && !ORDER_STATUSES.includes(status))
    fail(`the Order-Status header should be pending, completed or failed, not ${JSON.stringify(status.slice(0, 40))}`);
  return { orderId: orderId || null, status: status as OrderStatusReply | null };
}

/** The reply's headers, as `fetch`'s `Headers` gives them (lower-case names). */
export interface ReplyHeaders {
  get(name: string): string | null;
}

/** Lock, ID protection, DNS, delete (docs/api.md#domains): `{"success": true, ...}` plus what the registrar returned. */
export interface RegistrarResult {
  readonly success: true;
  readonly [key: string]: unknown;
}

export function expectRegistrarResult(value: Json, what: string): RegistrarResult {
  if (value === 'success') return { success: true };
  const obj = expectObject(value, what);
  if (obj.success !== true) fail(`${what}.success should be true`);
  return obj as RegistrarResult;
}

/** docs/api.md#pricing-of-one-domain: years (as text) → price. */
export type PeriodPrices = Readonly<Record<string, string>>;

export function expectPeriodPrices(value: Json, what: string): PeriodPrices {
  const obj = expectObject(value, what);
  for (const [period, price] of Object.entries(obj)) {
    if (!/^\d{1,2}$/.test(period)) fail(`${what} has the key "${period.slice(0, 20)}", not a period in years`);
    expectAmount(price, `${what}["${period}"]`);
  }
  return obj as PeriodPrices;
}

/** One row of `GET /tlds/pricing`: one element per TLD and period. A price the group does not set is absent. */
export interface TldPricingRow {
  readonly tld: string;
  readonly years: number;
  readonly registrationPrice?: string;
  readonly renewalPrice?: string;
  readonly transferPrice?: string;
  readonly graceDays: number;
  readonly graceFee: string;
  readonly redemptionDays: number;
  readonly redemptionFee: string;
  readonly currencyCode: string;
}

export function expectTldPricing(value: Json, what: string): TldPricingRow[] {
  return expectArrayOf(value, what, (item, w) => {
    const row = expectObject(item, w);
    str(row, 'tld', w);
    num(row, 'years', w);
    for (const key of ['registrationPrice', 'renewalPrice', 'transferPrice'])
      if (row[key] !== undefined) expectAmount(row[key], `${w}.${key}`);
    num(row, 'graceDays', w);
    expectAmount(row.graceFee, `${w}.graceFee`);
    num(row, 'redemptionDays', w);
    expectAmount(row.redemptionFee, `${w}.redemptionFee`);
    str(row, 'currencyCode', w);
    return row as unknown as TldPricingRow;
  });
}

export interface PeriodPricing {
  readonly register?: string;
  readonly renew?: string;
  readonly transfer?: string;
}

/** docs/api.md#suggestion-element, with its `status`, `pricing` and `shortestPeriod` shapes. */
export interface DomainSuggestion {
  readonly domainName: string;
  readonly idnDomainName: string;
  readonly tld: string;
  readonly tldNoDots: string;
  readonly sld: string;
  readonly idnSld: string;
  readonly status:
    | 'available for registration'
    | 'registered'
    | 'reserved'
    | 'unknown'
    | 'tld not supported'
    | (string & {});
  readonly legacyStatus: 'available' | 'unavailable' | (string & {});
  readonly score: number;
  readonly isRegistered: boolean;
  readonly isAvailable: boolean;
  readonly isValidDomain: boolean;
  readonly domainErrorMessage: string;
  readonly pricing: Readonly<Record<string, PeriodPricing>>;
  readonly shortestPeriod: (PeriodPricing & { readonly period: number }) | Readonly<Record<string, never>>;
  readonly group: string;
  readonly minLength: number;
  readonly maxLength: number;
  readonly isPremium: boolean;
  readonly premiumCostPricing: readonly unknown[];
}

export function expectSuggestions(value: Json, what: string): DomainSuggestion[] {
  return expectArrayOf(value, what, (item, w) => {
    const s = expectObject(item, w);
    str(s, 'domainName', w);
    str(s, 'status', w);
    bool(s, 'isAvailable', w);
    return s as unknown as DomainSuggestion;
  });
}

/** docs/api.md#domain-information, plus `status` (the same value as `registrationStatus`, docs/api.md). Unknown dates are absent. */
export interface DomainInformation {
  readonly domain: string;
  readonly nameservers: readonly string[];
  readonly transferLock: boolean;
  readonly expiryDate?: string;
  readonly registrationStatus: string;
  readonly status?: string;
  readonly restorable?: boolean;
  readonly renewBeforeExpiration?: boolean;
  readonly idProtectionStatus?: boolean;
  readonly dnsManagementStatus?: boolean;
  readonly emailForwardingStatus?: boolean;
  readonly transferLockExpiryDate?: string;
  readonly irtpOptOutStatus?: boolean;
  readonly irtpTransferLock?: boolean;
  readonly irtpTransferLockExpiryDate?: string;
  readonly domainContactChangePending?: boolean;
  readonly domainContactChangeExpiryDate?: string;
  readonly willDomainSuspend?: boolean;
  readonly isIrtpEnabled?: boolean;
  readonly irtpVerificationTriggerFields?: readonly string[];
  readonly registrantEmailAddress?: string;
}

export function expectInformation(value: Json, what: string): DomainInformation {
  const info = expectObject(value, what);
  str(info, 'domain', what);
  expectStringArray(info.nameservers, `${what}.nameservers`);
  bool(info, 'transferLock', what);
  str(info, 'expiryDate', what, false);
  str(info, 'registrationStatus', what);
  return info as unknown as DomainInformation;
}

/** docs/api.md#nameservers: `{"ns1": …, "ns5": …}`, unset ones as empty strings. */
export interface NameserverSet {
  readonly ns1: string;
  readonly ns2: string;
  readonly ns3: string;
  readonly ns4: string;
  readonly ns5: string;
}

export function expectNameservers(value: Json, what: string): NameserverSet {
  const obj = expectObject(value, what);
  const out: Record<string, string> = {};
  // ns1 is always sent (docs/api.md: unset ones as empty strings); the others may be left out by other servers.
  for (const key of ['ns1', 'ns2', 'ns3', 'ns4', 'ns5']) out[key] = str(obj, key, what, key === 'ns1') ?? '';
  return out as unknown as NameserverSet;
}

/** docs/api.md#domain-sync; `expirydate` is `YYYY-MM-DD`. */
export interface DomainSyncReply {
  readonly active: boolean;
  readonly expired: boolean;
  readonly transferredAway: boolean;
  readonly cancelled?: boolean;
  readonly expirydate?: string;
}

export function expectSync(value: Json, what: string): DomainSyncReply {
  const obj = expectObject(value, what);
  bool(obj, 'active', what);
  bool(obj, 'expired', what);
  bool(obj, 'transferredAway', what);
  bool(obj, 'cancelled', what, false);
  str(obj, 'expirydate', what, false);
  return obj as unknown as DomainSyncReply;
}

/** docs/api.md#transfer-sync. */
export interface TransferSyncReply {
  readonly completed: boolean;
  readonly failed: boolean;
  readonly reason?: string;
  readonly expirydate?: string;
}

export function expectTransferSync(value: Json, what: string): TransferSyncReply {
  const obj = expectObject(value, what);
  bool(obj, 'completed', what);
  bool(obj, 'failed', what);
  str(obj, 'reason', what, false);
  str(obj, 'expirydate', what, false);
  return obj as unknown as TransferSyncReply;
}

/** docs/api.md#dns-records, plus `recid` as billing platforms send it. */
export interface DnsRecordReply {
  readonly hostname: string;
  readonly type: string;
  readonly address: string;
  readonly priority?: string;
  readonly recid?: string;
}

export function expectDnsRecords(value: Json, what: string): DnsRecordReply[] {
  return expectArrayOf(value, what, (item, w) => {
    const r = expectObject(item, w);
    str(r, 'hostname', w);
    str(r, 'type', w);
    str(r, 'address', w);
    if (r.priority !== undefined && typeof r.priority !== 'string' && typeof r.priority !== 'number')
      fail(`${w}.priority should be a string`);
    return {
      ...r,
      ...(typeof r.priority === 'number' ? { priority: String(r.priority) } : {}),
    } as unknown as DnsRecordReply;
  });
}

export interface EmailForwardReply {
  readonly prefix: string;
  readonly forwardto: string;
}

export function expectEmailForwards(value: Json, what: string): EmailForwardReply[] {
  return expectArrayOf(value, what, (item, w) => {
    const r = expectObject(item, w);
    str(r, 'prefix', w);
    str(r, 'forwardto', w);
    return r as unknown as EmailForwardReply;
  });
}

/** Contact details by role (`Registrant`, `Admin`, `Tech`, `Billing`), each a map of field → text. */
export type ContactDetails = Readonly<Record<string, Readonly<Record<string, string>>>>;

export function expectContactDetails(value: Json, what: string): ContactDetails {
  const obj = expectObject(value, what);
  for (const [role, fields] of Object.entries(obj)) {
    const f = expectObject(fields, `${what}.${role}`);
    for (const [key, v] of Object.entries(f))
      if (typeof v !== 'string') fail(`${what}.${role}.${key} should be a string`);
  }
  return obj as ContactDetails;
}

export function expectEppCode(value: Json, what: string): string {
  const obj = expectObject(value, what);
  return str(obj, 'eppcode', what) as string;
}

export function expectLockState(value: Json, what: string): 'locked' | 'unlocked' {
  const text = expectString(value, what);
  return text === 'locked' || text === 'unlocked' ? text : fail(`${what} should be "locked" or "unlocked"`);
}

// ---- account lists (docs/api.md#account-lists) ----

/** One domain of `GET /account/domains`. */
export interface AccountDomain {
  /** The name in Unicode. */
  readonly domain: string;
  /** The name in ASCII (punycode). */
  readonly punycode: string;
  readonly tld: string;
  readonly status: string;
  /** YYYY-MM-DD; absent while unknown. */
  readonly expiryDate?: string;
  readonly nameservers: readonly string[];
  /** Absent while unknown. */
  readonly transferLock?: boolean;
  readonly addons: {
    readonly dnsmanagement: boolean;
    readonly emailforwarding: boolean;
    readonly idprotection: boolean;
  };
  readonly createdAt: string;
}

export type OrderStatusReply = 'pending' | 'completed' | 'failed';

/** One order of `GET /account/orders` and `GET /account/orders/{id}`. */
export interface AccountOrder {
  readonly id: string;
  readonly action: 'register' | 'renew' | 'transfer';
  readonly domain: string;
  readonly period: number;
  /** The price taken from the balance when the order was placed. */
  readonly amount: string;
  readonly status: OrderStatusReply;
  /** A failed order's price, given back in full. */
  readonly refunded?: string;
  /** The expiry a completed order produced (YYYY-MM-DD). */
  readonly expiryDate?: string;
  readonly placedAt: string;
  readonly settledAt?: string;
}

/** One entry of `GET /account/statement`. */
export interface StatementEntry {
  readonly id: string;
  readonly at: string;
  readonly kind: 'top_up' | 'adjustment' | 'order_debit' | 'order_refund';
  readonly amount: string;
  /** The balance right after this entry. */
  readonly balance: string;
  readonly orderId?: string;
  readonly description?: string;
}

/** A page of a list; `next` is the cursor of the following page, absent on the last one. */
export interface DomainPage {
  readonly domains: AccountDomain[];
  readonly next?: string;
}
export interface OrderPage {
  readonly orders: AccountOrder[];
  readonly next?: string;
}
export interface StatementPage {
  readonly currency: string;
  readonly openingBalance: string;
  readonly closingBalance: string;
  readonly entries: StatementEntry[];
  readonly next?: string;
}

const ORDER_STATUSES = ['pending', 'completed', 'failed'];

function expectNext(obj: Record<string, Json>, what: string): void {
  str(obj, 'next', what, false);
}

function expectAccountDomain(item: Json, what: string): AccountDomain {
  const d = expectObject(item, what);
  for (const key of ['domain', 'punycode', 'tld', 'status', 'createdAt']) str(d, key, what);
  str(d, 'expiryDate', what, false);
  expectStringArray(d.nameservers, `${what}.nameservers`);
  bool(d, 'transferLock', what, false);
  const addons = expectObject(d.addons, `${what}.addons`);
  for (const key of ['dnsmanagement', 'emailforwarding', 'idprotection']) bool(addons, key, `${what}.addons`);
  return d as unknown as AccountDomain;
}

export function expectAccountOrder(item: Json, what: string): AccountOrder {
  const o = expectObject(item, what);
  for (const key of ['id', 'action', 'domain', 'placedAt']) str(o, key, what);
  num(o, 'period', what);
  expectAmount(o.amount, `${what}.amount`);
  if (!ORDER_STATUSES.includes(String(o.status))) fail(`${what}.status should be pending, completed or failed`);
  if (o.refunded !== undefined) expectAmount(o.refunded, `${what}.refunded`);
  str(o, 'expiryDate', what, false);
  str(o, 'settledAt', what, false);
  return o as unknown as AccountOrder;
}

export function expectDomainPage(value: Json, what: string): DomainPage {
  const page = expectObject(value, what);
  expectArrayOf(page.domains, `${what}.domains`, expectAccountDomain);
  expectNext(page, what);
  return page as unknown as DomainPage;
}

export function expectOrderPage(value: Json, what: string): OrderPage {
  const page = expectObject(value, what);
  expectArrayOf(page.orders, `${what}.orders`, expectAccountOrder);
  expectNext(page, what);
  return page as unknown as OrderPage;
}

export function expectStatementPage(value: Json, what: string): StatementPage {
  const page = expectObject(value, what);
  str(page, 'currency', what);
  expectAmount(page.openingBalance, `${what}.openingBalance`);
  expectAmount(page.closingBalance, `${what}.closingBalance`);
  expectArrayOf(page.entries, `${what}.entries`, (item, w) => {
    const e = expectObject(item, w);
    for (const key of ['id', 'at', 'kind']) str(e, key, w);
    expectAmount(e.amount, `${w}.amount`);
    expectAmount(e.balance, `${w}.balance`);
    str(e, 'orderId', w, false);
    str(e, 'description', w, false);
    return e;
  });
  expectNext(page, what);
  return page as unknown as StatementPage;
}
