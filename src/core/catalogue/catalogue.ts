import type { Minor } from '../common/money';
import type { PremiumRule } from './premium';

export const ORDER_ACTIONS = ['register', 'renew', 'transfer'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

/** docs/api.md#addons-field: the addons an order may enable. Each may carry a yearly price per group (default free). */
export const ADDONS = ['dnsmanagement', 'emailforwarding', 'idprotection'] as const;
export type AddonName = (typeof ADDONS)[number];

export const MIN_PERIOD = 1;
export const MAX_PERIOD = 10;

/** Prices by period in years, in minor units: `{ 1: 1000, 2: 1950 }` is 10.00 for one year, 19.50 for two. */
export type PeriodPrices = Readonly<Record<number, Minor>>;

/** A price is a whole number of minor units, never negative. */
function isPrice(price: Minor): boolean {
  return Number.isSafeInteger(price) && price >= 0;
}

/**
 * The periods and prices one action of a TLD may be sold at: at least one period, each from
 * MIN_PERIOD to MAX_PERIOD years, no negative price. Returns the problem, or undefined.
 */
export function periodPricesProblem(action: OrderAction, prices: PeriodPrices): string | undefined {
  const entries = Object.entries(prices);
  if (entries.length === 0) return `${action} needs a price for at least one period`;
  for (const [key, price] of entries) {
    const period = Number(key);
    if (!Number.isInteger(period) || period < MIN_PERIOD || period > MAX_PERIOD)
      return `${action}: periods are ${MIN_PERIOD} to ${MAX_PERIOD} years; got ${key}`;
    if (!isPrice(price))
      return `${action}: the price for ${period} years must be a whole number of minor units, not negative`;
  }
  return undefined;
}

/** The yearly addon prices a group may be given: known addons, no negative price. */
export function addonPricesProblem(prices: Readonly<Record<string, Minor>>): string | undefined {
  const entries = Object.entries(prices);
  if (entries.length === 0) return 'give a yearly price for at least one addon';
  for (const [addon, price] of entries) {
    if (!(ADDONS as readonly string[]).includes(addon))
      return `unknown addon "${addon}"; addons are ${ADDONS.join(', ')}`;
    if (!isPrice(price)) return `${addon}: the yearly price must be a whole number of minor units, not negative`;
  }
  return undefined;
}

export interface Tld {
  /** ASCII form with its dot: ".com", ".co.uk", ".xn--p1ai". */
  readonly tld: string;
  /** Id of the registrar plugin that serves this TLD. */
  readonly registrar: string;
  readonly minLength: number;
  readonly maxLength: number;
  readonly graceDays: number;
  readonly redemptionDays: number;
}

export interface TldPrice {
  readonly tld: string;
  readonly action: OrderAction;
  readonly period: number;
  readonly price: Minor;
}

export interface CatalogueRepository {
  findTld(tld: string): Promise<Tld | undefined>;
  upsertTld(tld: Tld): Promise<void>;
  /**
   * Those of `tlds` in the catalogue, read as last committed and kept from change by others until
   * the transaction ends (MariaDB: `FOR UPDATE`, which also holds the place of one not there yet;
   * SQLite has one writer at a time). For the transaction's first read, so its later reads see at
   * least as much.
   */
  lockTlds(tlds: readonly string[]): Promise<Tld[]>;
  /** Adds a TLD; false, writing nothing, when it is in the catalogue already. */
  insertTld(tld: Tld): Promise<boolean>;
  /** Replaces every price of one action of one TLD for one group. */
  replacePrices(groupId: string, tld: string, action: OrderAction, prices: ReadonlyMap<number, Minor>): Promise<void>;
  /** TLDs with at least one register price for the group, sorted. */
  offeredTlds(groupId: string): Promise<string[]>;
  prices(groupId: string, tld?: string): Promise<TldPrice[]>;
  listTlds(): Promise<Tld[]>;
  /** Yearly addon prices of a group; an addon left out is free. */
  addonPrices(groupId: string): Promise<Map<AddonName, Minor>>;
  /** Sets the given addons' yearly prices for a group; others keep theirs. */
  setAddonPrices(groupId: string, prices: ReadonlyMap<AddonName, Minor>): Promise<void>;
  /** The group's premium rule; undefined when it has none (premium names are not sold to it). */
  premiumRule(groupId: string): Promise<PremiumRule | undefined>;
  /** Stores the group's premium rule, or removes it (null). */
  setPremiumRule(groupId: string, rule: PremiumRule | null): Promise<void>;
  /**
   * Keeps premium prices quoted to a reseller, each replacing an older quote for the same name and
   * action, and forgets that reseller's quotes expired by `quotedAt`.
   */
  savePremiumQuotes(quotes: readonly PremiumQuote[]): Promise<void>;
  /** The reseller's quote for the name and action, while it lasts (`expiresAt` after `at`). */
  premiumQuote(resellerId: string, domain: string, action: OrderAction, at: Date): Promise<PremiumQuote | undefined>;
}

/** A premium price search quoted to a reseller (docs/orders.md#premium-quotes). */
export interface PremiumQuote {
  readonly resellerId: string;
  /** ASCII (punycode). */
  readonly domain: string;
  readonly action: OrderAction;
  /** The group's yearly price as quoted, in minor units. */
  readonly price: Minor;
  readonly quotedAt: Date;
  readonly expiresAt: Date;
}
