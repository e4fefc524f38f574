import { applyMargin, marginRuleProblem, type MarginRule } from '../../../../src/core/catalogue/cost-price-import';

const rule = (over: Partial<MarginRule> = {}): MarginRule => ({
  percentBasisPoints: 0,
  fixed: 0,
  rounding: { kind: 'none' },
  ...over,
});

describe('the margin rule of a cost price import', () => {
  it('adds the percentage, then the fixed amount', () => {
    expect(applyMargin(800, rule({ percentBasisPoints: 2000 }))).toBe(960);
    expect(applyMargin(800, rule({ percentBasisPoints: 2000, fixed: 100 }))).toBe(1060);
    expect(applyMargin(800, rule({ fixed: 150 }))).toBe(950);
  });

  it('rounds a fraction of a minor unit up, so the margin is never below the rule', () => {
    // 12.5% of 0.01 is 0.00125: the price is 0.02, not 0.01.
    expect(applyMargin(1, rule({ percentBasisPoints: 1250 }))).toBe(2);
    // 33.33% of 9.99 is 3.329667: 13.32 (13.319667 rounded up).
    expect(applyMargin(999, rule({ percentBasisPoints: 3333 }))).toBe(1332);
  });

  it('stays exact on amounts too large for floating point products', () => {
    // 90,071,992,547,409 × 1.0001 = 90,080,999,746,663.7409: the product is beyond 2^53.
    expect(applyMargin(90_071_992_547_409, rule({ percentBasisPoints: 1 }))).toBe(90_080_999_746_664);
  });

  it('rounds up to the next price ending in the given cents, keeping one that already does', () => {
    const to99 = rule({ rounding: { kind: 'ending', cents: 99 } });
    expect(applyMargin(1060, to99)).toBe(1099);
    expect(applyMargin(1099, to99)).toBe(1099);
    expect(applyMargin(1100, to99)).toBe(1199);
    expect(applyMargin(1001, rule({ rounding: { kind: 'ending', cents: 0 } }))).toBe(1100);
    expect(applyMargin(1000, rule({ rounding: { kind: 'ending', cents: 0 } }))).toBe(1000);
  });

  it('rounds up to the next multiple', () => {
    const half = rule({ rounding: { kind: 'multiple', of: 50 } });
    expect(applyMargin(1060, half)).toBe(1100);
    expect(applyMargin(1050, half)).toBe(1050);
    expect(applyMargin(1001, rule({ rounding: { kind: 'multiple', of: 100 } }))).toBe(1100);
  });

  it.each([
    [rule({ percentBasisPoints: -1 }), 'the margin percentage must be from 0 to 10000%, in steps of 0.01%'],
    [rule({ percentBasisPoints: 1_000_001 }), 'the margin percentage must be from 0 to 10000%, in steps of 0.01%'],
    [rule({ fixed: -100 }), 'the fixed margin cannot be negative'],
    [rule({ rounding: { kind: 'multiple', of: 0 } }), 'prices can only be rounded to a multiple of at least 0.01'],
    [rule({ rounding: { kind: 'ending', cents: 100 } }), 'a price ending must be from .00 to .99'],
  ])('refuses the rule %p', (bad, problem) => {
    expect(marginRuleProblem(bad)).toBe(problem);
  });
});
