import type { Db } from '../db/db';
import type {
  AddonName,
  CatalogueRepository,
  OrderAction,
  PremiumQuote,
  Tld,
  TldPrice,
} from '../../core/catalogue/catalogue';
import type { Minor } from '../../core/common/money';
import type { PremiumRule } from '../../core/catalogue/premium';
import { databaseKind } from '../db/database-kind';
import { insertUnlessPresent } from './insert-unless-present';

interface TldRow {
  tld: string;
  registrar: string;
  min_length: number;
  max_length: number;
  grace_days: number;
  redemption_days: number;
}
interface PriceRow {
  group_id: string;
  tld: string;
  action: string;
  period: number;
  price_minor: number | string;
}

const toTld = (row: TldRow): Tld => ({
  tld: row.tld,
  registrar: row.registrar,
  minLength: Number(row.min_length),
  maxLength: Number(row.max_length),
  graceDays: Number(row.grace_days),
  redemptionDays: Number(row.redemption_days),
});

const tldRow = (tld: Tld) => ({
  tld: tld.tld,
  registrar: tld.registrar,
  min_length: tld.minLength,
  max_length: tld.maxLength,
  grace_days: tld.graceDays,
  redemption_days: tld.redemptionDays,
});

export class KnexCatalogueRepository implements CatalogueRepository {
  constructor(private readonly db: Db) {}

  async findTld(tld: string): Promise<Tld | undefined> {
    const row = await this.db<TldRow>('tlds').where({ tld }).first();
    return row && toTld(row);
  }

  async upsertTld(tld: Tld): Promise<void> {
    await this.db('tlds').insert(tldRow(tld)).onConflict('tld').merge();
  }

  async lockTlds(tlds: readonly string[]): Promise<Tld[]> {
    if (tlds.length === 0) return [];
    const query = this.db<TldRow>('tlds')
      .whereIn('tld', [...tlds])
      .orderBy('tld');
    // SQLite has one writer at a time already (and knex warns at FOR UPDATE there).
    if (databaseKind(this.db) === 'mysql') query.forUpdate();
    return (await query).map(toTld);
  }

  async insertTld(tld: Tld): Promise<boolean> {
    return insertUnlessPresent(this.db('tlds').insert(tldRow(tld)));
  }

  async replacePrices(
    groupId: string,
    tld: string,
    action: OrderAction,
    prices: ReadonlyMap<number, Minor>,
  ): Promise<void> {
    await this.db('tld_prices').where({ group_id: groupId, tld, action }).delete();
    const rows = [...prices].map(([period, price]) => ({ group_id: groupId, tld, action, period, price_minor: price }));
    if (rows.length > 0) await this.db('tld_prices').insert(rows);
  }

  async offeredTlds(groupId: string): Promise<string[]> {
    const rows = await this.db('tld_prices')
      .distinct('tld')
      .where({ group_id: groupId, action: 'register' })
      .orderBy('tld');
    return rows.map((row: { tld: string }) => row.tld);
  }

  async prices(groupId: string, tld?: string): Promise<TldPrice[]> {
    const query = this.db<PriceRow>('tld_prices').where({ group_id: groupId });
    if (tld !== undefined) query.andWhere({ tld });
    const rows = await query.orderBy([{ column: 'tld' }, { column: 'action' }, { column: 'period' }]);
    return rows.map((row) => ({
      tld: row.tld,
      action: row.action as OrderAction,
      period: Number(row.period),
      price: Number(row.price_minor),
    }));
  }

  async listTlds(): Promise<Tld[]> {
    return (await this.db<TldRow>('tlds').orderBy('tld')).map(toTld);
  }

  async addonPrices(groupId: string): Promise<Map<AddonName, Minor>> {
    const rows: Array<{ addon: string; price_minor: number | string }> = await this.db('addon_prices').where({
      group_id: groupId,
    });
    return new Map(rows.map((row) => [row.addon as AddonName, Number(row.price_minor)]));
  }

  async setAddonPrices(groupId: string, prices: ReadonlyMap<AddonName, Minor>): Promise<void> {
    for (const [addon, price] of prices) {
      await this.db('addon_prices')
        .insert({ group_id: groupId, addon, price_minor: price })
        .onConflict(['group_id', 'addon'])
        .merge();
    }
  }

  async premiumRule(groupId: string): Promise<PremiumRule | undefined> {
    const row: { rule: string } | undefined = await this.db('premium_rules').where({ group_id: groupId }).first();
    return row ? (JSON.parse(row.rule) as PremiumRule) : undefined;
  }

  async setPremiumRule(groupId: string, rule: PremiumRule | null): Promise<void> {
    if (rule === null) {
      await this.db('premium_rules').where({ group_id: groupId }).delete();
      return;
    }
    await this.db('premium_rules')
      .insert({ group_id: groupId, rule: JSON.stringify(rule) })
      .onConflict(['group_id'])
      .merge();
  }

  async savePremiumQuotes(quotes: readonly PremiumQuote[]): Promise<void> {
    for (const resellerId of new Set(quotes.map((q) => q.resellerId))) {
      const now = Math.max(...quotes.filter((q) => q.resellerId === resellerId).map((q) => q.quotedAt.getTime()));
      await this.db('premium_quotes').where({ reseller_id: resellerId }).andWhere('expires_at', '<=', now).delete();
    }
    if (quotes.length === 0) return;
    await this.db('premium_quotes')
      .insert(
        quotes.map((q) => ({
          reseller_id: q.resellerId,
          domain: q.domain,
          action: q.action,
          price_minor: q.price,
          quoted_at: q.quotedAt.getTime(),
          expires_at: q.expiresAt.getTime(),
        })),
      )
      .onConflict(['reseller_id', 'domain', 'action'])
      .merge(['price_minor', 'quoted_at', 'expires_at']);
  }

  async premiumQuote(
    resellerId: string,
    domain: string,
    action: OrderAction,
    at: Date,
  ): Promise<PremiumQuote | undefined> {
    const row: { price_minor: number | string; quoted_at: number | string; expires_at: number | string } | undefined =
      await this.db('premium_quotes')
        .where({ reseller_id: resellerId, domain, action })
        .andWhere('expires_at', '>', at.getTime())
        .first('price_minor', 'quoted_at', 'expires_at');
    if (!row) return undefined;
    return {
      resellerId,
      domain,
      action,
      price: Number(row.price_minor),
      quotedAt: new Date(Number(row.quoted_at)),
      expiresAt: new Date(Number(row.expires_at)),
    };
  }
}
