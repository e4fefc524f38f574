import type { SearchResult } from '../../../src/core/search/search';
import { SuggestionsBody, toSearchQuery, toSuggestionWire } from '../../../src/http/wire/search-wire';

const result = (overrides: Partial<SearchResult> = {}): SearchResult => ({
  domain: { ascii: 'shop.co.uk', unicode: 'shop.co.uk' },
  sld: { ascii: 'shop', unicode: 'shop' },
  tld: { ascii: '.co.uk', unicode: '.co.uk' },
  status: 'available',
  isExactMatch: true,
  score: 100,
  isValidDomain: true,
  errorMessage: '',
  prices: [
    { period: 1, register: 1000, renew: 1200 },
    { period: 3, register: 2850, transfer: 900 },
  ],
  minLength: 2,
  maxLength: 63,
  isPremium: false,
  ...overrides,
});

describe('toSuggestionWire', () => {
  it('should remove every dot from tldNoDots', () => {
    expect(toSuggestionWire(result()).tldNoDots).toBe('couk');
  });

  it('should key pricing by period and leave unpriced actions out', () => {
    const wire = toSuggestionWire(result());
    expect(wire.pricing).toEqual({
      1: { register: '10.00', renew: '12.00' },
      3: { register: '28.50', transfer: '9.00' },
    });
    expect(wire.shortestPeriod).toEqual({ period: 1, register: '10.00', renew: '12.00' });
  });

  it('should give empty objects for a TLD that has no prices', () => {
    const wire = toSuggestionWire(result({ status: 'tld_not_supported', prices: [] }));
    expect(wire).toMatchObject({
      status: 'tld not supported',
      legacyStatus: 'unavailable',
      pricing: {},
      shortestPeriod: {},
      isAvailable: false,
    });
  });

  it.each([
    ['available', 'available for registration', 'available', false, true],
    ['registered', 'registered', 'unavailable', true, false],
    ['reserved', 'reserved', 'unavailable', false, false],
    ['unknown', 'unknown', 'unavailable', false, false],
  ] as const)(
    'should map %s to the billing platform status phrase',
    (status, phrase, legacy, isRegistered, isAvailable) => {
      expect(toSuggestionWire(result({ status }))).toMatchObject({
        status: phrase,
        legacyStatus: legacy,
        isRegistered,
        isAvailable,
      });
    },
  );

  it('should give premium cost in the billing platform shape, and [] without one', () => {
    expect(toSuggestionWire(result()).premiumCostPricing).toEqual([]);
    const premium = toSuggestionWire(
      result({ isPremium: true, premiumPrice: { register: 50_000, transfer: 40_000, currency: 'EUR' } }),
    );
    expect(premium.premiumCostPricing).toEqual({ register: '500.00', transfer: '400.00', CurrencyCode: 'EUR' });
  });
});

describe('SuggestionsBody', () => {
  it('should read tldsToInclude given as a keyed object in index order', () => {
    const body = SuggestionsBody.parse({ searchTerm: 'shop', tldsToInclude: { 10: '.org', 2: '.net', 1: '.com' } });
    expect(toSearchQuery(body).tldsToInclude).toEqual(['.com', '.net', '.org']);
  });

  it('should read one TLD given as plain text', () => {
    expect(toSearchQuery(SuggestionsBody.parse({ searchTerm: 'shop', tldsToInclude: '.com' })).tldsToInclude).toEqual([
      '.com',
    ]);
  });

  it('should take maxResults from suggestionSettings and ignore other settings', () => {
    const body = SuggestionsBody.parse({
      searchTerm: 'shop',
      suggestionSettings: { maxResults: '7', includeCCTlds: 'on' },
    });
    expect(toSearchQuery(body).maxResults).toBe(7);
  });
});
