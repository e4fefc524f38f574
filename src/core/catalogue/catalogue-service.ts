import { recordChange } from '../audit/audit-log';
import type { RegistrarDirectory } from '../registrar/registrar-directory';
import { DomainError } from '../common/errors';
import { formatAmount, type Minor } from '../common/money';
import { systemClock, type Clock } from '../common/clock';
import { RecentReads } from '../common/recent-reads';
import type { UnitOfWork } from '../common/unit-of-work';
import { parseDomainName, parseTld, splitRegistrable, type RegistrableDomain } from '../domain/domain-name';
import {
  ADDONS,
  addonPricesProblem,
  periodPricesProblem,
  type AddonName,
  type OrderAction,
  type PeriodPrices,
  type Tld,
  type TldPrice,
} from './catalogue';
import { describePremiumRule, premiumRuleProblem, type PremiumRule } from './premium';

export interface SetTldInput {
  readonly tld: string;
  readonly group: string;
  /** The registrar plugin serving the TLD; left out, an existing TLD keeps its own (a new one needs it). */
  readonly registrar?: string;
  /** Each action's prices replace all of that action's prices for the group; an action left out keeps its own. */
  readonly prices: Partial<Record<OrderAction, PeriodPrices>>;
  readonly minLength?: number;
  readonly maxLength?: number;
  readonly graceDays?: number;
  readonly redemptionDays?: number;
}

export interface SetTldResult {
  readonly tld: Tld;
  readonly group: string;
  /** The group's prices for the TLD after the change: action → period → decimal price. */
  readonly prices: Record<string, Record<string, string>>;
}

/** One row of `GET /tlds/pricing` (docs/api.md#tld-pricing): one element per TLD and period. */
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

export interface PricedDomain {
  readonly domain: RegistrableDomain;
  readonly tld: Tld;
}

export interface CatalogueReadOptions {
  /**
   * How long the catalogue reads of the order path (offered TLDs, a TLD, its prices, addon
   * prices) are reused (0: read every time). Changes made through this service apply at once in
   * this process; changes made by another process (the CLI) within this time (docs/adr/0008-catalogue-reads-reused-briefly.md).
   */
  readonly cacheMs: number;
  readonly clock: Clock;
}

export class CatalogueService {
  private readonly recent: RecentReads;
  private readonly clock: Clock;

  constructor(
    private readonly uow: UnitOfWork,
    private readonly registrars: RegistrarDirectory,
    private readonly currencyCode: string,
    options: CatalogueReadOptions = { cacheMs: 0, clock: systemClock },
  ) {
    this.recent = new RecentReads(options.cacheMs, options.clock);
    this.clock = options.clock;
  }

  async setTld(input: SetTldInput): Promise<SetTldResult> {
    const [result] = await this.setTlds([input]);
    return result;
  }

  /** Sets several TLDs and their prices in one unit of work: all of them, or (on any problem) none. */
  async setTlds(inputs: readonly SetTldInput[]): Promise<SetTldResult[]> {
    const checked = inputs.map((input) => this.checkSetTld(input));
    const results = await this.uow.run(async ({ groups, catalogue, audit }) => {
      const done: SetTldResult[] = [];
      for (const { input, tldName, prices } of checked) {
        const group = await groups.findByName(input.group.trim());
        if (!group) throw new DomainError('not_found', `group "${input.group}" does not exist`);
        const existing = await catalogue.findTld(tldName);
        if (!existing && !input.prices.register)
          throw new DomainError('validation_failed', `${tldName} is new: give its register prices`);
        const registrar = input.registrar ?? existing?.registrar;
        if (!registrar)
          throw new DomainError('validation_failed', `${tldName} is new: give the registrar plugin that serves it`);
        const tld: Tld = {
          tld: tldName,
          registrar,
          minLength: input.minLength ?? existing?.minLength ?? 1,
          maxLength: input.maxLength ?? existing?.maxLength ?? 63,
          graceDays: input.graceDays ?? existing?.graceDays ?? 0,
          redemptionDays: input.redemptionDays ?? existing?.redemptionDays ?? 0,
        };
        if (tld.minLength < 1 || tld.maxLength > 63 || tld.minLength > tld.maxLength) {
          throw new DomainError('validation_failed', 'label lengths must satisfy 1 <= min <= max <= 63');
        }
        const before = existing && { ...existing, prices: groupByAction(await catalogue.prices(group.id, tldName)) };
        await catalogue.upsertTld(tld);
        for (const [action, list] of prices) await catalogue.replacePrices(group.id, tldName, action, list);
        const rows = await catalogue.prices(group.id, tldName);
        done.push({ tld, group: group.name, prices: groupByAction(rows) });
        await recordChange(audit, this.clock, {
          action: 'tld.set',
          subject: { kind: 'tld', id: tldName },
          before: before ? { group: group.name, ...before } : null,
          after: { group: group.name, ...tld, prices: groupByAction(rows) },
        });
      }
      return done;
    });
    this.recent.clear();
    return results;
  }

  private checkSetTld(input: SetTldInput) {
    const { ascii: tldName } = parseTld(input.tld);
    if (input.registrar !== undefined && !this.registrars.has(input.registrar)) {
      const known = this.registrars.ids();
      throw new DomainError(
        'validation_failed',
        `registrar "${input.registrar}" is not an installed plugin; installed: ${known.length ? known.join(', ') : 'none'}`,
      );
    }
    const prices = Object.entries(input.prices)
      .filter(([, list]) => list !== undefined)
      .map(([action, list]) => {
        const problem = periodPricesProblem(action as OrderAction, list);
        if (problem) throw new DomainError('validation_failed', problem);
        return [action as OrderAction, toPeriodMap(list)] as const;
      });
    const lengths = [input.minLength, input.maxLength, input.graceDays, input.redemptionDays];
    if (lengths.some((n) => n !== undefined && (!Number.isInteger(n) || n < 0 || n > 365))) {
      throw new DomainError('validation_failed', 'lengths and day counts must be whole numbers from 0 to 365');
    }
    return { input, tldName, prices };
  }

  /** Told after another service changed the catalogue in its own unit of work (the cost import): the reads reused are dropped. */
  catalogueChanged(): void {
    this.recent.clear();
  }

  offeredTlds(groupId: string): Promise<string[]> {
    return this.recent.read(`offered ${groupId}`, () => this.uow.read.catalogue.offeredTlds(groupId));
  }

  listTlds(): Promise<Tld[]> {
    return this.uow.read.catalogue.listTlds();
  }

  /** A group's prices, of every TLD or of one (the operator's views: `group show`, `tld show`). */
  pricesOf(groupId: string, tld?: string): Promise<TldPrice[]> {
    return this.uow.read.catalogue.prices(groupId, tld);
  }

  /**
   * Normalises a domain and finds its TLD among those offered to the group.
   * A TLD we do not sell to this group is `not_offered`: something the client can change, not a missing resource.
   */
  async resolveDomain(groupId: string, input: string): Promise<PricedDomain> {
    const name = parseDomainName(input);
    const offered = new Set(await this.offeredTlds(groupId));
    const domain = splitRegistrable(name, (tld) => offered.has(tld));
    if (!domain) throw new DomainError('not_offered', `${name.unicode}: its TLD is not offered to your account`);
    const tld = await this.recent.read(`tld ${domain.tld}`, () => this.uow.read.catalogue.findTld(domain.tld));
    if (!tld) throw new DomainError('not_offered', `${domain.tld} is not offered to your account`);
    if (domain.sld.length < tld.minLength || domain.sld.length > tld.maxLength) {
      throw new DomainError(
        'validation_failed',
        `names under ${tld.tld} must be ${tld.minLength} to ${tld.maxLength} characters long`,
      );
    }
    return { domain, tld };
  }

  /** docs/api.md#pricing-of-one-domain: `{"1": "10.00", "2": "19.50"}` for one action of one domain's TLD. */
  async pricing(groupId: string, domainInput: string, action: OrderAction): Promise<Record<string, string>> {
    const { tld } = await this.resolveDomain(groupId, domainInput);
    const prices = await this.priceList(groupId, tld.tld, action);
    if (prices.size === 0) throw new DomainError('not_offered', `${action} is not offered for ${tld.tld}`);
    return Object.fromEntries([...prices].map(([period, price]) => [String(period), formatAmount(price)]));
  }

  async priceList(groupId: string, tld: string, action: OrderAction): Promise<Map<number, Minor>> {
    const rows = await this.recent.read(`prices ${groupId} ${tld}`, () => this.uow.read.catalogue.prices(groupId, tld));
    return new Map(
      rows
        .filter((r) => r.action === action)
        .sort((a, b) => a.period - b.period)
        .map((r) => [r.period, r.price]),
    );
  }

  /**
   * The group stops selling a TLD: its register and transfer prices are removed, so new
   * registrations and transfers are refused; renew prices stay, so its resellers' domains under
   * the TLD can still be renewed.
   */
  async stopSelling(groupName: string, tldInput: string): Promise<{ group: string; tld: string }> {
    const { ascii: tld } = parseTld(tldInput);
    const result = await this.uow.run(async ({ groups, catalogue, audit }) => {
      const group = await groups.findByName(groupName.trim());
      if (!group) throw new DomainError('not_found', `group "${groupName}" does not exist`);
      const before = groupByAction(await catalogue.prices(group.id, tld));
      for (const action of ['register', 'transfer'] as const)
        await catalogue.replacePrices(group.id, tld, action, new Map());
      await recordChange(audit, this.clock, {
        action: 'tld.stop_selling',
        subject: { kind: 'tld', id: tld },
        before: { group: group.name, prices: before },
        after: { group: group.name, prices: groupByAction(await catalogue.prices(group.id, tld)) },
      });
      return { group: group.name, tld };
    });
    this.recent.clear();
    return result;
  }

  /**
   * Removes one period's price of one action (`tld remove-price`): the other periods stay. A
   * period that is not priced is `not_found`, so a typo never passes for a change.
   */
  async removePrice(
    groupName: string,
    tldInput: string,
    action: OrderAction,
    period: number,
  ): Promise<{ group: string; tld: string; prices: Partial<Record<OrderAction, Record<string, string>>> }> {
    const { ascii: tld } = parseTld(tldInput);
    const result = await this.uow.run(async ({ groups, catalogue, audit }) => {
      const group = await groups.findByName(groupName.trim());
      if (!group) throw new DomainError('not_found', `group "${groupName}" does not exist`);
      const rows = await catalogue.prices(group.id, tld);
      const kept = new Map(rows.filter((r) => r.action === action).map((r) => [r.period, r.price]));
      if (!kept.delete(period))
        throw new DomainError(
          'not_found',
          `group "${group.name}" has no ${action} price for ${tld} for ${period} year(s)`,
        );
      await catalogue.replacePrices(group.id, tld, action, kept);
      const after = groupByAction(await catalogue.prices(group.id, tld));
      await recordChange(audit, this.clock, {
        action: 'tld.remove_price',
        subject: { kind: 'tld', id: tld },
        before: { group: group.name, prices: groupByAction(rows) },
        after: { group: group.name, prices: after },
      });
      return { group: group.name, tld, prices: after };
    });
    this.recent.clear();
    return result;
  }

  /** Yearly addon prices of a group (docs/api.md#addons-field: default free). */
  addonPrices(groupId: string): Promise<Map<AddonName, Minor>> {
    return this.recent.read(`addons ${groupId}`, () => this.uow.read.catalogue.addonPrices(groupId));
  }

  /** Sets the given addons' yearly prices for a group (minor units); the others keep theirs. */
  async setAddonPrices(
    groupName: string,
    yearly: Readonly<Partial<Record<AddonName, Minor>>>,
  ): Promise<{ group: string; addons: Record<string, string> }> {
    const problem = addonPricesProblem(yearly as Record<string, Minor>);
    if (problem) throw new DomainError('validation_failed', problem);
    const prices = new Map(Object.entries(yearly) as Array<[AddonName, Minor]>);
    const result = await this.uow.run(async ({ groups, catalogue, audit }) => {
      const group = await groups.findByName(groupName.trim());
      if (!group) throw new DomainError('not_found', `group "${groupName}" does not exist`);
      const shown = (all: Map<AddonName, Minor>) =>
        Object.fromEntries(ADDONS.map((a) => [a, formatAmount(all.get(a) ?? 0)]));
      const before = shown(await catalogue.addonPrices(group.id));
      await catalogue.setAddonPrices(group.id, prices);
      const after = shown(await catalogue.addonPrices(group.id));
      await recordChange(audit, this.clock, {
        action: 'group.addon_prices.set',
        subject: { kind: 'group', id: group.id },
        before,
        after,
      });
      return { group: group.name, addons: after };
    });
    this.recent.clear();
    return result;
  }

  /** The group's premium rule (docs/orders.md#premium-names); undefined: premium names are not sold to it. */
  premiumRule(groupId: string): Promise<PremiumRule | undefined> {
    return this.recent.read(`premium ${groupId}`, () => this.uow.read.catalogue.premiumRule(groupId));
  }

  /** `group set-premium-rule`: stores (or, with null, removes) a group's premium rule. */
  async setPremiumRule(groupName: string, rule: PremiumRule | null): Promise<{ group: string; premium: string }> {
    const problem = rule === null ? undefined : premiumRuleProblem(rule);
    if (problem) throw new DomainError('validation_failed', problem);
    const result = await this.uow.run(async ({ groups, catalogue, audit }) => {
      const group = await groups.findByName(groupName.trim());
      if (!group) throw new DomainError('not_found', `group "${groupName}" does not exist`);
      const before = describePremiumRule(await catalogue.premiumRule(group.id));
      await catalogue.setPremiumRule(group.id, rule);
      const premium = describePremiumRule(await catalogue.premiumRule(group.id));
      await recordChange(audit, this.clock, {
        action: 'group.premium_rule.set',
        subject: { kind: 'group', id: group.id },
        before: { premium: before },
        after: { premium },
      });
      return { group: group.name, premium };
    });
    this.recent.clear();
    return result;
  }

  /** docs/api.md#tld-pricing: one row per offered TLD and period; an unpriced action is left out. */
  async tldPricing(groupId: string): Promise<TldPricingRow[]> {
    const [rows, tlds] = await Promise.all([
      this.uow.read.catalogue.prices(groupId),
      this.uow.read.catalogue.listTlds(),
    ]);
    const byTld = new Map(tlds.map((t) => [t.tld, t]));
    const cells = new Map<string, Map<number, Partial<Record<OrderAction, Minor>>>>();
    for (const row of rows) {
      const periods = cells.get(row.tld) ?? new Map();
      cells.set(row.tld, periods);
      periods.set(row.period, { ...periods.get(row.period), [row.action]: row.price });
    }
    const result: TldPricingRow[] = [];
    for (const [tldName, periods] of [...cells].sort(([a], [b]) => a.localeCompare(b))) {
      const tld = byTld.get(tldName);
      if (!tld || ![...periods.values()].some((p) => p.register !== undefined)) continue;
      for (const [years, p] of [...periods].sort(([a], [b]) => a - b)) {
        result.push({
          tld: tldName,
          years,
          ...(p.register !== undefined && { registrationPrice: formatAmount(p.register) }),
          ...(p.renew !== undefined && { renewalPrice: formatAmount(p.renew) }),
          ...(p.transfer !== undefined && { transferPrice: formatAmount(p.transfer) }),
          graceDays: tld.graceDays,
          graceFee: '0.00',
          redemptionDays: tld.redemptionDays,
          redemptionFee: '0.00',
          currencyCode: this.currencyCode,
        });
      }
    }
    return result;
  }
}

function toPeriodMap(prices: PeriodPrices): Map<number, Minor> {
  return new Map(
    Object.entries(prices)
      .map(([period, price]) => [Number(period), price] as [number, Minor])
      .sort(([a], [b]) => a - b),
  );
}

function groupByAction(rows: TldPrice[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const row of [...rows].sort((a, b) => a.period - b.period)) {
    out[row.action] = { ...out[row.action], [String(row.period)]: formatAmount(row.price) };
  }
  return out;
}
