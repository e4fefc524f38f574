import type {
  AddonName,
  CatalogueRepository,
  OrderAction,
  PremiumQuote,
  Tld,
  TldPrice,
} from '../../../core/catalogue/catalogue';
import type { PremiumRule } from '../../../core/catalogue/premium';
import type { Minor } from '../../../core/common/money';
import { assertMinor, assertReferenced, assertUnique, byText, copy, key, type TablesRef } from './memory-tables';

/** The twin of KnexCatalogueRepository: `tlds`, `tld_prices`, `addon_prices`, `premium_rules`, `premium_quotes`. */
export class MemoryCatalogueRepository implements CatalogueRepository {
  constructor(private readonly ref: TablesRef) {}

  private get t() {
    return this.ref.tables;
  }

  async findTld(tld: string): Promise<Tld | undefined> {
    return copy(this.t.tlds.get(tld));
  }

  async upsertTld(tld: Tld): Promise<void> {
    this.t.tlds.set(tld.tld, copy(tld));
  }

  /** Row locks are no-ops here: a transaction has the tables to itself until it ends. */
  async lockTlds(tlds: readonly string[]): Promise<Tld[]> {
    return copy([...new Set(tlds)].flatMap((tld) => this.t.tlds.get(tld) ?? []).sort((a, b) => byText(a.tld, b.tld)));
  }

  async insertTld(tld: Tld): Promise<boolean> {
    if (this.t.tlds.has(tld.tld)) return false;
    this.t.tlds.set(tld.tld, copy(tld));
    return true;
  }

  async replacePrices(
    groupId: string,
    tld: string,
    action: OrderAction,
    prices: ReadonlyMap<number, Minor>,
  ): Promise<void> {
    for (const [k, row] of this.t.tldPrices)
      if (row.groupId === groupId && row.tld === tld && row.action === action) this.t.tldPrices.delete(k);
    if (prices.size === 0) return;
    assertReferenced(this.t.groups.has(groupId), `tld_prices.group_id ${groupId}`);
    assertReferenced(this.t.tlds.has(tld), `tld_prices.tld ${tld}`);
    for (const [period, price] of prices) {
      const k = key(groupId, tld, action, period);
      assertUnique(this.t.tldPrices.has(k), `tld_prices ${k}`);
      this.t.tldPrices.set(k, { groupId, tld, action, period, price: assertMinor(price, 'tld_prices.price_minor') });
    }
  }

  async offeredTlds(groupId: string): Promise<string[]> {
    const tlds = [...this.t.tldPrices.values()]
      .filter((p) => p.groupId === groupId && p.action === 'register')
      .map((p) => p.tld);
    return [...new Set(tlds)].sort(byText);
  }

  async prices(groupId: string, tld?: string): Promise<TldPrice[]> {
    return [...this.t.tldPrices.values()]
      .filter((p) => p.groupId === groupId && (tld === undefined || p.tld === tld))
      .sort((a, b) => byText(a.tld, b.tld) || byText(a.action, b.action) || a.period - b.period)
      .map(({ tld, action, period, price }) => ({ tld, action, period, price }));
  }

  async listTlds(): Promise<Tld[]> {
    return copy([...this.t.tlds.values()].sort((a, b) => byText(a.tld, b.tld)));
  }

  async addonPrices(groupId: string): Promise<Map<AddonName, Minor>> {
    return new Map(
      [...this.t.addonPrices.values()].filter((p) => p.groupId === groupId).map((p) => [p.addon, p.price]),
    );
  }

  async setAddonPrices(groupId: string, prices: ReadonlyMap<AddonName, Minor>): Promise<void> {
    for (const [addon, price] of prices) {
      assertReferenced(this.t.groups.has(groupId), `addon_prices.group_id ${groupId}`);
      this.t.addonPrices.set(key(groupId, addon), {
        groupId,
        addon,
        price: assertMinor(price, 'addon_prices.price_minor'),
      });
    }
  }

  async premiumRule(groupId: string): Promise<PremiumRule | undefined> {
    return copy(this.t.premiumRules.get(groupId));
  }

  async setPremiumRule(groupId: string, rule: PremiumRule | null): Promise<void> {
    if (rule === null) {
      this.t.premiumRules.delete(groupId);
      return;
    }
    assertReferenced(this.t.groups.has(groupId), `premium_rules.group_id ${groupId}`);
    // Stored as JSON text, as the table keeps it.
    this.t.premiumRules.set(groupId, JSON.parse(JSON.stringify(rule)) as PremiumRule);
  }

  async savePremiumQuotes(quotes: readonly PremiumQuote[]): Promise<void> {
    for (const resellerId of new Set(quotes.map((q) => q.resellerId))) {
      const now = Math.max(...quotes.filter((q) => q.resellerId === resellerId).map((q) => q.quotedAt.getTime()));
      for (const [k, quote] of this.t.premiumQuotes)
        if (quote.resellerId === resellerId && quote.expiresAt.getTime() <= now) this.t.premiumQuotes.delete(k);
    }
    for (const quote of quotes) {
      assertReferenced(this.t.resellers.has(quote.resellerId), `premium_quotes.reseller_id ${quote.resellerId}`);
      assertMinor(quote.price, 'premium_quotes.price_minor');
      this.t.premiumQuotes.set(key(quote.resellerId, quote.domain, quote.action), copy(quote));
    }
  }

  async premiumQuote(
    resellerId: string,
    domain: string,
    action: OrderAction,
    at: Date,
  ): Promise<PremiumQuote | undefined> {
    const quote = this.t.premiumQuotes.get(key(resellerId, domain, action));
    return quote && quote.expiresAt.getTime() > at.getTime() ? copy(quote) : undefined;
  }
}
