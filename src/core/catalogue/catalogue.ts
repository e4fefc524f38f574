import type { Minor } from '../shared/money';

export const ORDER_ACTIONS = ['register', 'renew', 'transfer'] as const;
export type OrderAction = (typeof ORDER_ACTIONS)[number];

/** docs/api.md#addons-field: the addons an order may enable. Each may carry a yearly price per group (default free). */
export const ADDONS = ['dnsmanagement', 'emailforwarding', 'idprotection'] as const;
export type AddonName = (typeof ADDONS)[number];

export const MIN_PERIOD = 1;
export const MAX_PERIOD = 10;

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
}
