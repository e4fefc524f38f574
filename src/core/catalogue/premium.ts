import { formatAmount, type Minor } from '../common/money';

/**
 * A group's premium rule (docs/orders.md#premium-names): how the registrar's premium cost of a
 * name becomes the group's price. A group without a rule is not sold premium names at all.
 * - `markup`: the cost plus a percentage, in basis points (2000 = 20 %), rounded up to the minor unit;
 * - `table`: fixed prices by cost band, `upTo` ascending: the first band whose `upTo` is at least
 *   the cost gives the price; a cost above the last band is not sold.
 */
/** A premium name's yearly registry costs in minor units, per action its registrar priced. */
export interface PremiumCosts {
  readonly register?: Minor;
  readonly renew?: Minor;
  readonly transfer?: Minor;
}

export type PremiumRule =
  | { readonly kind: 'markup'; readonly basisPoints: number }
  | { readonly kind: 'table'; readonly bands: ReadonlyArray<{ readonly upTo: Minor; readonly price: Minor }> };

const MAX_BASIS_POINTS = 1_000_000;

/** The rule's problem, or undefined when the operator may store it. */
export function premiumRuleProblem(rule: PremiumRule): string | undefined {
  if (rule.kind === 'markup') {
    if (!Number.isSafeInteger(rule.basisPoints) || rule.basisPoints < 0 || rule.basisPoints > MAX_BASIS_POINTS)
      return 'the premium markup must be a percentage from 0 to 10000 with at most 2 decimals';
    return undefined;
  }
  if (rule.bands.length === 0) return 'the premium table needs at least one "cost up to=price" band';
  let previous = -1;
  for (const { upTo, price } of rule.bands) {
    if (!Number.isSafeInteger(upTo) || upTo < 0 || !Number.isSafeInteger(price) || price < 0)
      return 'premium table amounts must be whole numbers of minor units, not negative';
    if (upTo <= previous) return 'premium table bands must be listed by cost, each band once';
    if (price < upTo) return `the premium price for costs up to ${formatAmount(upTo)} is below that cost`;
    previous = upTo;
  }
  return undefined;
}

/** The group's price for a premium cost, or undefined when the rule does not sell a name at that cost. */
export function premiumPrice(rule: PremiumRule, cost: Minor): Minor | undefined {
  if (rule.kind === 'markup') return Math.ceil((cost * (10_000 + rule.basisPoints)) / 10_000);
  return rule.bands.find((band) => cost <= band.upTo)?.price;
}

/** How the operator and the CLI see a rule: `markup 20.00%` or `table 100.00=150.00,500.00=650.00`. */
export function describePremiumRule(rule: PremiumRule | undefined): string {
  if (!rule) return 'none (premium names are not sold)';
  if (rule.kind === 'markup') return `markup ${formatAmount(rule.basisPoints)}%`;
  return `table ${rule.bands.map((b) => `${formatAmount(b.upTo)}=${formatAmount(b.price)}`).join(',')}`;
}
