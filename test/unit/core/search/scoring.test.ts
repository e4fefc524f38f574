import {
  DEFAULT_REGISTRAR_SCORE,
  EXACT_MATCH_SCORE,
  registrarBase,
  suggestionScore,
} from '../../../../src/core/search/scoring';

describe('suggestionScore', () => {
  it('should keep the base for the first TLD and a label as long as the term', () => {
    expect(suggestionScore({ base: 90, tldRank: 0, extraLength: 0 })).toBe(90);
  });

  it('should take 2 points per TLD place and 1 per extra character', () => {
    expect(suggestionScore({ base: 80, tldRank: 3, extraLength: 4 })).toBe(80 - 6 - 4);
  });

  it('should cap each penalty at 20', () => {
    expect(suggestionScore({ base: 90, tldRank: 50, extraLength: 50 })).toBe(50);
  });

  it('should stay below the exact matches and above zero', () => {
    expect(suggestionScore({ base: 500, tldRank: 0, extraLength: 0 })).toBe(EXACT_MATCH_SCORE - 1);
    expect(suggestionScore({ base: 0, tldRank: 10, extraLength: 10 })).toBe(1);
  });

  it('should not reward a shorter label', () => {
    expect(suggestionScore({ base: 90, tldRank: 0, extraLength: -3 })).toBe(90);
  });

  it('should give integers', () => {
    expect(Number.isInteger(suggestionScore({ base: 77.6, tldRank: 1, extraLength: 2 }))).toBe(true);
  });
});

describe('registrarBase', () => {
  it('should scale a registrar score to at most 95', () => {
    expect(registrarBase(100)).toBe(95);
    expect(registrarBase(0)).toBe(0);
    expect(registrarBase(60)).toBe(57);
  });

  it('should clamp nonsense and use the default for a missing score', () => {
    expect(registrarBase(1e9)).toBe(95);
    expect(registrarBase(-5)).toBe(0);
    expect(registrarBase(Number.NaN)).toBe(Math.round(DEFAULT_REGISTRAR_SCORE * 0.95));
    expect(registrarBase(undefined)).toBe(Math.round(DEFAULT_REGISTRAR_SCORE * 0.95));
  });
});
