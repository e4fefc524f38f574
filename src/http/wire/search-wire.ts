import { z } from 'zod';
import type { PeriodPrices, SearchQuery, SearchResult, SearchStatus } from '../../core/search/search';
import { formatAmount } from '../../core/common/money';
import { optionalText, wireBoolean } from './schemas';

/**
 * A list as PHP clients send it (docs/api.md#requests): repeated names (`tldsToInclude=.com&tldsToInclude=.net`),
 * `tldsToInclude[]=…`, `tldsToInclude[0]=…` (a keyed object once indices pass the parser's array
 * limit), one plain value, or a JSON array.
 */
const textList = (field: string) =>
  z
    .union([z.string(), z.array(z.string()), z.record(z.string(), z.string())], {
      error: `${field} must be a list of TLDs like .com`,
    })
    .transform((value): string[] => {
      if (typeof value === 'string') return [value];
      if (Array.isArray(value)) return value;
      return Object.keys(value)
        .sort((a, b) => Number(a) - Number(b) || a.localeCompare(b))
        .map((key) => value[key]);
    });

/**
 * docs/api.md#domain-suggestions: "must always be an array (an empty array is valid) and must never be null". PHP
 * clients drop an empty array from a form, so absent means empty too. Billing platforms put
 * their registrar's own settings in it; the one we read is `maxResults` (1 to 100), the rest are
 * ignored.
 */
const suggestionSettings = z
  .union([z.literal(''), z.array(z.unknown()), z.record(z.string(), z.unknown())], {
    error: 'suggestionSettings must be an array, like suggestionSettings[maxResults]=10 or []',
  })
  .transform((value, ctx): { maxResults?: number } => {
    if (typeof value === 'string' || Array.isArray(value)) return {};
    const max = value.maxResults;
    if (max === undefined || max === '') return {};
    if (typeof max !== 'string' || !/^\d{1,3}$/.test(max.trim())) {
      ctx.addIssue({ code: 'custom', message: 'suggestionSettings maxResults must be a whole number from 1 to 100' });
      return z.NEVER;
    }
    return { maxResults: Number(max.trim()) };
  });

/** `POST /domains/lookup`: the search fields of docs/api.md#domain-suggestions without suggestionSettings. */
export const LookupBody = z.object({
  searchTerm: optionalText('searchTerm'),
  punyCodeSearchTerm: optionalText('punyCodeSearchTerm'),
  tldsToInclude: textList('tldsToInclude').optional(),
  isIdnDomain: wireBoolean('isIdnDomain').optional(),
  premiumEnabled: wireBoolean('premiumEnabled').optional(),
});

/** `POST /domains/lookup/suggestions` (docs/api.md#domain-suggestions). */
export const SuggestionsBody = LookupBody.extend({
  suggestionSettings: suggestionSettings.optional(),
});

export function toSearchQuery(body: z.infer<typeof SuggestionsBody> | z.infer<typeof LookupBody>): SearchQuery {
  const settings = 'suggestionSettings' in body ? body.suggestionSettings : undefined;
  return {
    searchTerm: body.searchTerm,
    punyCodeSearchTerm: body.punyCodeSearchTerm,
    tldsToInclude: body.tldsToInclude,
    isIdnDomain: body.isIdnDomain,
    premiumEnabled: body.premiumEnabled,
    maxResults: settings?.maxResults,
  };
}

type Prices = { register: string; renew?: string; transfer?: string };

/** docs/api.md#suggestion-element, every field always present with its type (docs/search.md). */
export interface SuggestionWire {
  domainName: string;
  idnDomainName: string;
  tld: string;
  tldNoDots: string;
  sld: string;
  idnSld: string;
  status: string;
  legacyStatus: 'available' | 'unavailable';
  score: number;
  isRegistered: boolean;
  isAvailable: boolean;
  isValidDomain: boolean;
  domainErrorMessage: string;
  pricing: Record<string, Prices>;
  shortestPeriod: ({ period: number } & Prices) | Record<string, never>;
  group: string;
  minLength: number;
  maxLength: number;
  isPremium: boolean;
  premiumCostPricing: [] | (Partial<Prices> & { CurrencyCode: string });
}

/** docs/api.md#suggestion-element: the billing platform's status phrases. */
const STATUS_TEXT: Record<SearchStatus, string> = {
  available: 'available for registration',
  registered: 'registered',
  reserved: 'reserved',
  unknown: 'unknown',
  tld_not_supported: 'tld not supported',
};

const prices = (p: PeriodPrices): Prices => ({
  register: formatAmount(p.register),
  ...(p.renew !== undefined && { renew: formatAmount(p.renew) }),
  ...(p.transfer !== undefined && { transfer: formatAmount(p.transfer) }),
});

/** One TLD's prices are the same array in every element of a reply: formatted once. */
const formatted = new WeakMap<readonly PeriodPrices[], Pick<SuggestionWire, 'pricing' | 'shortestPeriod'>>();
function pricesOf(periods: readonly PeriodPrices[]): Pick<SuggestionWire, 'pricing' | 'shortestPeriod'> {
  let wire = formatted.get(periods);
  if (!wire) {
    const shortest = periods[0];
    wire = {
      pricing: Object.fromEntries(periods.map((p) => [String(p.period), prices(p)])),
      shortestPeriod: shortest ? { period: shortest.period, ...prices(shortest) } : {},
    };
    formatted.set(periods, wire);
  }
  return wire;
}

export function toSuggestionWire(r: SearchResult): SuggestionWire {
  const { pricing, shortestPeriod } = pricesOf(r.prices);
  const premium = r.premiumPrice;
  return {
    domainName: r.domain.ascii,
    idnDomainName: r.domain.unicode,
    tld: r.tld.ascii,
    tldNoDots: r.tld.ascii.replace(/\./g, ''),
    sld: r.sld.ascii,
    idnSld: r.sld.unicode,
    status: STATUS_TEXT[r.status],
    legacyStatus: r.status === 'available' ? 'available' : 'unavailable',
    score: r.score,
    isRegistered: r.status === 'registered',
    isAvailable: r.status === 'available',
    isValidDomain: r.isValidDomain,
    domainErrorMessage: r.errorMessage,
    pricing,
    shortestPeriod,
    // The billing platform's TLD promotion label (hot, new, sale); the catalogue has none, so none is shown.
    group: '',
    minLength: r.minLength,
    maxLength: r.maxLength,
    isPremium: r.isPremium,
    // The billing platform's premium cost shape: {register, renew, transfer, CurrencyCode}; [] when there is none.
    premiumCostPricing: premium
      ? {
          register: formatAmount(premium.register),
          ...(premium.renew !== undefined && { renew: formatAmount(premium.renew) }),
          ...(premium.transfer !== undefined && { transfer: formatAmount(premium.transfer) }),
          CurrencyCode: premium.currency,
        }
      : [],
  };
}
