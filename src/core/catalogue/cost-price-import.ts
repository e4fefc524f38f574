import { recordChange } from '../audit/audit-log';
import { type Clock, systemClock } from '../common/clock';
import { parseTld } from '../domain/domain-name';
import { DomainError } from '../common/errors';
import { formatAmount, type Minor } from '../common/money';
import type { UnitOfWork } from '../common/unit-of-work';
import { MAX_PERIOD, MIN_PERIOD, ORDER_ACTIONS, type OrderAction, type Tld, type TldPrice } from './catalogue';
import type { CatalogueService } from './catalogue-service';

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
  /** A cost of 0 is refused unless this is set (a registrar's 0.00 is more often a gap than a gift). */
  readonly allowZeroCost?: boolean;
}

export interface CostPriceImportOptions {
  /** Compute and return what the import would do, or refuse, and write nothing. */
  readonly dryRun: boolean;
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

/** What an import changed, or with `dryRun` would change. */
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
  /** Whether prices were written: false for a dry run and for an import with nothing to change. */
  readonly applied: boolean;
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

/** How often an import whose TLDs another import added meanwhile is planned again. */
const ATTEMPTS = 3;

/**
 * Imports a registrar's cost prices into a group's sale prices with a margin rule, the way
 * billing platforms sync registrar TLD pricing. `run` fetches the costs from the registrar, checks
 * them, then in one unit of work reads the catalogue, computes every sale price and the diff
 * against the group's prices and, unless it is a dry run, writes exactly that: all TLDs or none.
 * A dry run goes through the same checks and the same plan, so it shows what the real run would
 * do, or the same refusal.
 *
 * For each TLD the registrar prices: a TLD not in the catalogue is added, served by this
 * registrar (only when the registrar prices its registration); a TLD served by another registrar
 * is skipped, never moved, also when another import adds it at the same moment (the TLDs are
 * locked before the catalogue is read). For each action the registrar prices, the group's prices
 * of that action become exactly the registrar's periods: a period it no longer prices is removed,
 * since its old price may now be below cost. Actions the registrar does not price keep their prices.
 */
export class CostPriceImport {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly catalogue: CatalogueService,
    private readonly costs: CostPriceSource,
    private readonly clock: Clock = systemClock,
  ) {}

  /** What `run` would do, writing nothing. */
  plan(input: CostPriceImportInput): Promise<CostPriceImportPlan> {
    return this.run(input, { dryRun: true });
  }

  async run(input: CostPriceImportInput, options: CostPriceImportOptions): Promise<CostPriceImportPlan> {
    const problem = marginRuleProblem(input.margin);
    if (problem) throw new DomainError('validation_failed', problem);
    const wanted = input.tlds && new Set(input.tlds.map((t) => parseTld(t).ascii));
    const groupName = String(input.group ?? '').trim();
    if (!(await this.uow.read.groups.findByName(groupName)))
      throw new DomainError('not_found', `group "${input.group}" does not exist`);
    // The registrar is asked outside any transaction: a slow registrar holds no lock.
    const offers = await this.costs(input.registrar);
    if (offers === undefined)
      throw new DomainError('validation_failed', `registrar ${input.registrar} does not offer TLD pricing`);
    const costsByTld = checkedCosts(offers, input, wanted);
    const missing = wanted ? [...wanted].filter((t) => !costsByTld.has(t)) : [];

    for (let attempt = 1; ; attempt++) {
      try {
        const plan = await this.uow.run(async ({ groups, catalogue, audit }) => {
          // The TLDs first, locked: an import of the same TLDs elsewhere waits, and what is read next sees it.
          const tlds = await catalogue.lockTlds([...costsByTld.keys()]);
          const group = await groups.findByName(groupName);
          if (!group) throw new DomainError('not_found', `group "${input.group}" does not exist`);
          const current = await catalogue.prices(group.id);
          const planned = planImport(input, group.name, costsByTld, missing, tlds, current);
          if (options.dryRun || planned.changes.length === 0) return { ...planned.plan, applied: false };
          for (const tld of planned.newTlds)
            if (!(await catalogue.insertTld(tld))) throw new TldAddedMeanwhile(tld.tld);
          for (const { tld, action, prices } of planned.writes)
            await catalogue.replacePrices(group.id, tld, action, prices);
          // Each TLD set is audited as `tld set` audits it, with its prices before and after.
          const served = new Map([...tlds, ...planned.newTlds].map((t) => [t.tld, t]));
          for (const tld of new Set(planned.writes.map((w) => w.tld))) {
            const { tld: _name, ...settings } = served.get(tld)!;
            const isNew = planned.newTlds.some((t) => t.tld === tld);
            await recordChange(audit, this.clock, {
              action: 'tld.set',
              subject: { kind: 'tld', id: tld },
              before: isNew
                ? null
                : { group: group.name, ...settings, prices: byAction(current.filter((p) => p.tld === tld)) },
              after: { group: group.name, ...settings, prices: byAction(await catalogue.prices(group.id, tld)) },
            });
          }
          return { ...planned.plan, applied: true };
        });
        if (plan.applied) this.catalogue.catalogueChanged();
        return plan;
      } catch (error) {
        if (!(error instanceof TldAddedMeanwhile)) throw error;
        if (attempt >= ATTEMPTS)
          throw new DomainError(
            'conflict',
            `${error.tld} was added to the catalogue while importing; nothing was written; run the import again`,
          );
      }
    }
  }
}

/** Another import (or `tld set`) added a TLD between this import's read and its write; the import is planned again. */
class TldAddedMeanwhile extends Error {
  constructor(readonly tld: string) {
    super(`${tld} was added meanwhile`);
  }
}

interface PlannedImport {
  readonly plan: Omit<CostPriceImportPlan, 'applied'>;
  readonly changes: readonly PriceChange[];
  readonly newTlds: readonly Tld[];
  readonly writes: ReadonlyArray<{ tld: string; action: OrderAction; prices: ReadonlyMap<number, Minor> }>;
}

/** The diff and the writes, from the checked costs and the catalogue as read in the transaction. */
function planImport(
  input: CostPriceImportInput,
  groupName: string,
  costsByTld: CostsByTld,
  missing: readonly string[],
  tlds: readonly Tld[],
  current: readonly TldPrice[],
): PlannedImport {
  const servedBy = new Map(tlds.map((t) => [t.tld, t.registrar]));
  const changes: PriceChange[] = [];
  const skipped: SkippedTld[] = missing.map((tld) => ({ tld, reason: `${input.registrar} does not price it` }));
  const newTlds: Tld[] = [];
  const writes: Array<{ tld: string; action: OrderAction; prices: ReadonlyMap<number, Minor> }> = [];
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
    const tldChanges: PriceChange[] = [];
    const tldWrites: typeof writes = [];
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
        else tldChanges.push({ tld, action, period, cost, from, to });
      }
      for (const [period, from] of [...before].sort(([a], [b]) => a - b)) {
        if (!after.has(period)) tldChanges.push({ tld, action, period, cost: null, from, to: null });
      }
      tldWrites.push({ tld, action, prices: after });
    }
    if (tldChanges.length === 0) continue;
    changes.push(...tldChanges);
    writes.push(...tldWrites);
    if (registrar === undefined) newTlds.push({ ...NEW_TLD, tld, registrar: input.registrar });
  }

  return {
    plan: {
      registrar: input.registrar,
      group: groupName,
      changes,
      unchanged,
      skipped,
      newTlds: newTlds.map((t) => t.tld),
    },
    changes,
    newTlds,
    writes,
  };
}

/** A TLD the import adds: the catalogue's defaults (`tld set` changes them). */
const NEW_TLD = { minLength: 1, maxLength: 63, graceDays: 0, redemptionDays: 0 } as const;

/** TLD → action → period → cost. */
type CostsByTld = Map<string, Map<OrderAction, Map<number, Minor>>>;

/** The most problems one refusal lists; the count of the others is said. */
const PROBLEMS_SHOWN = 10;

/**
 * The registrar's costs for the TLDs asked for, checked: a malformed list is refused whole, the
 * same for a dry run and a real one. Refused: a TLD and period listed twice (which cost would
 * be meant?), a cost that is not a whole number of minor units, a period outside 1 to 10 years,
 * a row without any cost, and a cost of 0 unless `allowZeroCost`.
 */
function checkedCosts(
  offers: readonly TldCost[],
  input: CostPriceImportInput,
  wanted: ReadonlySet<string> | undefined,
): CostsByTld {
  const byTld: CostsByTld = new Map();
  const problems: string[] = [];
  const seen = new Set<string>();
  for (const offer of offers) {
    let tld: string;
    try {
      tld = parseTld(offer.tld).ascii;
    } catch {
      problems.push(`${JSON.stringify(String(offer.tld).slice(0, 40))} is not a TLD`);
      continue;
    }
    if (wanted && !wanted.has(tld)) continue;
    const period = offer.period;
    const where = `${tld} ${period} year(s)`;
    if (!Number.isInteger(period) || period < MIN_PERIOD || period > MAX_PERIOD) {
      problems.push(`${tld}: a period of ${String(period)} years (periods are ${MIN_PERIOD} to ${MAX_PERIOD})`);
      continue;
    }
    if (seen.has(where)) {
      problems.push(`${where} is listed twice`);
      continue;
    }
    seen.add(where);
    const priced = ORDER_ACTIONS.filter((action) => offer[action] !== undefined);
    if (priced.length === 0) problems.push(`${where} has no cost`);
    for (const action of priced) {
      const cost = offer[action]!;
      if (!Number.isSafeInteger(cost) || cost < 0) {
        problems.push(`${where} ${action}: a cost of ${String(cost)} is not a whole number of minor units`);
        continue;
      }
      if (cost === 0 && !input.allowZeroCost) {
        problems.push(`${where} ${action} costs 0.00 (allow it explicitly to sell from a cost of 0.00)`);
        continue;
      }
      const byAction = byTld.get(tld) ?? new Map<OrderAction, Map<number, Minor>>();
      byTld.set(tld, byAction);
      const periods = byAction.get(action) ?? new Map<number, Minor>();
      byAction.set(action, periods);
      periods.set(period, cost);
    }
  }
  if (problems.length > 0) {
    const shown = problems.slice(0, PROBLEMS_SHOWN);
    const more = problems.length - shown.length;
    throw new DomainError(
      'validation_failed',
      `the costs from ${input.registrar} cannot be imported; nothing was written: ${shown.join('; ')}` +
        (more > 0 ? `; and ${more} more` : ''),
    );
  }
  return byTld;
}

/** Prices as the audit log shows them: action → period → amount. */
function byAction(rows: readonly TldPrice[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const row of [...rows].sort((a, b) => a.period - b.period))
    out[row.action] = { ...out[row.action], [String(row.period)]: formatAmount(row.price) };
  return out;
}
