import { parseTld } from '../domain/domain-name';
import { DomainError } from '../common/errors';
import type { Minor } from '../common/money';
import type { UnitOfWork } from '../common/unit-of-work';
import { ORDER_ACTIONS, type OrderAction, type PeriodPrices } from './catalogue';
import type { CatalogueService, SetTldInput } from './catalogue-service';

/** A registrar's cost for one TLD and period, per action it prices, in minor units. */
export interface TldCost {
  readonly tld: string;
  readonly period: number;
  readonly register?: Minor;
  readonly renew?: Minor;
  readonly transfer?: Minor;
}

/**
 * Where costs come from: the registrar's `tldPricing`. Undefined when the registrar does not
 * price TLDs; a registrar that is not installed or fails throws.
 */
export type CostPriceSource = (registrarId: string) => Promise<readonly TldCost[] | undefined>;

/** How a price is rounded up after the margin: not at all, to a multiple, or to the next price ending in given cents. */
export type Rounding =
  | { readonly kind: 'none' }
  | { readonly kind: 'multiple'; readonly of: Minor }
  | { readonly kind: 'ending'; readonly cents: number };

/**
 * The sale price made from a cost: the cost plus `percentBasisPoints` hundredths of a percent of
 * it (2000 is 20%), plus `fixed`, then rounded up. Every step rounds up, so a price never falls
 * below the rule.
 */
export interface MarginRule {
  readonly percentBasisPoints: number;
  readonly fixed: Minor;
  readonly rounding: Rounding;
}

export interface CostPriceImportInput {
  readonly registrar: string;
  readonly group: string;
  readonly margin: MarginRule;
  /** Only these TLDs (with the dot); default every TLD the registrar prices. */
  readonly tlds?: readonly string[];
}

/** One price that the import sets, changes or removes (`to: null`: the registrar no longer prices that period). */
export interface PriceChange {
  readonly tld: string;
  readonly action: OrderAction;
  readonly period: number;
  /** The registrar's cost; null for a period being removed. */
  readonly cost: Minor | null;
  /** The group's price before; null for a new one. */
  readonly from: Minor | null;
  readonly to: Minor | null;
}

export interface SkippedTld {
  readonly tld: string;
  readonly reason: string;
}

/** What an import would change; `apply` writes it. */
export interface CostPriceImportPlan {
  readonly registrar: string;
  readonly group: string;
  readonly changes: readonly PriceChange[];
  /** Prices the import computed equal to the group's current ones. */
  readonly unchanged: number;
  /** TLDs the registrar prices that the import leaves alone, and why. */
  readonly skipped: readonly SkippedTld[];
  /** TLDs the import adds to the catalogue, served by this registrar. */
  readonly newTlds: readonly string[];
  /** The catalogue writes, one per TLD with a change. */
  readonly writes: readonly SetTldInput[];
}

const BASIS = 10_000n;

/** The sale price for a cost under the rule, in exact integer arithmetic. */
export function applyMargin(cost: Minor, rule: MarginRule): Minor {
  const withPercent = (BigInt(cost) * (BASIS + BigInt(rule.percentBasisPoints)) + BASIS - 1n) / BASIS;
  const price = Number(withPercent) + rule.fixed;
  const { rounding } = rule;
  if (rounding.kind === 'multiple') return Math.ceil(price / rounding.of) * rounding.of;
  if (rounding.kind === 'ending') {
    const candidate = Math.floor(price / 100) * 100 + rounding.cents;
    return candidate >= price ? candidate : candidate + 100;
  }
  return price;
}

/** The rule's own limits, in business terms. */
export function marginRuleProblem(rule: MarginRule): string | undefined {
  if (!Number.isInteger(rule.percentBasisPoints) || rule.percentBasisPoints < 0 || rule.percentBasisPoints > 1_000_000)
    return 'the margin percentage must be from 0 to 10000%, in steps of 0.01%';
  if (!Number.isSafeInteger(rule.fixed) || rule.fixed < 0) return 'the fixed margin cannot be negative';
  const { rounding } = rule;
  if (rounding.kind === 'multiple' && (!Number.isSafeInteger(rounding.of) || rounding.of < 1))
    return 'prices can only be rounded to a multiple of at least 0.01';
  if (rounding.kind === 'ending' && (!Number.isInteger(rounding.cents) || rounding.cents < 0 || rounding.cents > 99))
    return 'a price ending must be from .00 to .99';
  return undefined;
}

/**
 * Imports a registrar's cost prices into a group's sale prices with a margin rule, the way
 * billing platforms sync registrar TLD pricing: `plan` fetches the costs from the registrar,
 * computes every sale price from its cost and the diff against the group's prices; `apply` writes
 * the plan through the catalogue in one unit of work (all TLDs or none).
 *
 * For each TLD the registrar prices: a TLD not in the catalogue is added, served by this
 * registrar (only when the registrar prices its registration); a TLD served by another registrar
 * is skipped, never moved. For each action the registrar prices, the group's prices of that
 * action become exactly the registrar's periods: a period it no longer prices is removed, since
 * its old price may now be below cost. Actions the registrar does not price keep their prices.
 */
export class CostPriceImport {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly catalogue: CatalogueService,
    private readonly costs: CostPriceSource,
  ) {}

  async plan(input: CostPriceImportInput): Promise<CostPriceImportPlan> {
    const problem = marginRuleProblem(input.margin);
    if (problem) throw new DomainError('validation_failed', problem);
    const wanted = input.tlds && new Set(input.tlds.map((t) => parseTld(t).ascii));
    const group = await this.uow.read.groups.findByName(input.group.trim());
    if (!group) throw new DomainError('not_found', `group "${input.group}" does not exist`);
    const offers = await this.costs(input.registrar);
    if (offers === undefined)
      throw new DomainError('validation_failed', `registrar ${input.registrar} does not offer TLD pricing`);

    const [tlds, current] = await Promise.all([
      this.uow.read.catalogue.listTlds(),
      this.uow.read.catalogue.prices(group.id),
    ]);
    const servedBy = new Map(tlds.map((t) => [t.tld, t.registrar]));
    const costsByTld = groupCosts(offers.filter((o) => !wanted || wanted.has(o.tld)));
    const missing = wanted ? [...wanted].filter((t) => !costsByTld.has(t)) : [];

    const changes: PriceChange[] = [];
    const skipped: SkippedTld[] = missing.map((tld) => ({ tld, reason: `${input.registrar} does not price it` }));
    const newTlds: string[] = [];
    const writes: SetTldInput[] = [];
    let unchanged = 0;

    for (const [tld, byAction] of [...costsByTld].sort(([a], [b]) => a.localeCompare(b))) {
      const registrar = servedBy.get(tld);
      if (registrar !== undefined && registrar !== input.registrar) {
        skipped.push({ tld, reason: `served by registrar ${registrar}` });
        continue;
      }
      if (registrar === undefined && !byAction.has('register')) {
        skipped.push({ tld, reason: `not on sale yet and ${input.registrar} does not price its registration` });
        continue;
      }
      if (registrar === undefined) newTlds.push(tld);
      const prices: Partial<Record<OrderAction, PeriodPrices>> = {};
      for (const action of ORDER_ACTIONS) {
        const costs = byAction.get(action);
        if (!costs) continue;
        const before = new Map(
          current.filter((p) => p.tld === tld && p.action === action).map((p) => [p.period, p.price]),
        );
        const after = new Map([...costs].map(([period, cost]) => [period, applyMargin(cost, input.margin)]));
        for (const [period, cost] of [...costs].sort(([a], [b]) => a - b)) {
          const to = after.get(period)!;
          const from = before.get(period) ?? null;
          if (from === to) unchanged++;
          else changes.push({ tld, action, period, cost, from, to });
        }
        for (const [period, from] of [...before].sort(([a], [b]) => a - b)) {
          if (!after.has(period)) changes.push({ tld, action, period, cost: null, from, to: null });
        }
        prices[action] = Object.fromEntries(after);
      }
      if (changes.some((c) => c.tld === tld))
        writes.push({ tld, group: group.name, registrar: input.registrar, prices });
    }

    return { registrar: input.registrar, group: group.name, changes, unchanged, skipped, newTlds, writes };
  }

  /** Writes a plan's prices (and new TLDs); a plan without changes writes nothing. */
  async apply(plan: CostPriceImportPlan): Promise<void> {
    if (plan.writes.length > 0) await this.catalogue.setTlds(plan.writes);
  }
}

/** TLD → action → period → cost; a TLD and period listed twice keeps its last price. */
function groupCosts(offers: readonly TldCost[]): Map<string, Map<OrderAction, Map<number, Minor>>> {
  const byTld = new Map<string, Map<OrderAction, Map<number, Minor>>>();
  for (const offer of offers) {
    const byAction = byTld.get(offer.tld) ?? new Map<OrderAction, Map<number, Minor>>();
    byTld.set(offer.tld, byAction);
    for (const action of ORDER_ACTIONS) {
      const cost = offer[action];
      if (cost === undefined) continue;
      const periods = byAction.get(action) ?? new Map<number, Minor>();
      byAction.set(action, periods);
      periods.set(offer.period, cost);
    }
  }
  return byTld;
}
