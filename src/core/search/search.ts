import type { Minor } from '../common/money';

/** A name in its two forms: ASCII (punycode) for registrars and storage, Unicode for display. */
export interface NameForms {
  readonly ascii: string;
  readonly unicode: string;
}

/**
 * What a search asks for, as the wire gave it (docs/api.md#domain-suggestions). The term wins over nothing:
 * `punyCodeSearchTerm` is used when it is not blank, else `searchTerm`.
 */
export interface SearchQuery {
  readonly searchTerm?: string;
  readonly punyCodeSearchTerm?: string;
  /** Each `.ext` (or `ext`), Unicode or punycode. Absent or empty: every TLD offered to the group. */
  readonly tldsToInclude?: readonly string[];
  /** Accepted for compatibility; the term's own form decides whether it is an IDN. */
  readonly isIdnDomain?: boolean;
  /** Without it a premium name is never offered as available (it is reported `reserved`). */
  readonly premiumEnabled?: boolean;
  /** How many suggestions (beyond the exact names) to return at most; 1 to 100. */
  readonly maxResults?: number;
}

/**
 * The availability of one name as a search reports it. docs/api.md maps these to the wire:
 * `available for registration`, `registered`, `reserved`, `unknown`, `tld not supported`.
 */
export type SearchStatus = 'available' | 'registered' | 'reserved' | 'unknown' | 'tld_not_supported';

/** Catalogue prices of one registration period, in minor units. */
export interface PeriodPrices {
  readonly period: number;
  readonly register: Minor;
  readonly renew?: Minor;
  readonly transfer?: Minor;
}

export interface PremiumPrice {
  readonly register: Minor;
  readonly renew?: Minor;
  readonly transfer?: Minor;
  readonly currency: string;
}

/** One element of a search reply, before wire formatting. */
export interface SearchResult {
  readonly domain: NameForms;
  readonly sld: NameForms;
  readonly tld: NameForms;
  readonly status: SearchStatus;
  /** The searched label itself on one TLD (always listed, whatever its status). */
  readonly isExactMatch: boolean;
  /** Relevance, 1 to 100; exact matches are 100 (docs/search.md). */
  readonly score: number;
  /** False when the label breaks the TLD's length rules; the registrar is not asked then. */
  readonly isValidDomain: boolean;
  /** Why the name is not offered, or "" (a registrar that did not answer, a length rule, a premium name). */
  readonly errorMessage: string;
  /** The group's catalogue prices per registration period, ascending; empty for an unsupported TLD. */
  readonly prices: readonly PeriodPrices[];
  readonly minLength: number;
  readonly maxLength: number;
  /** Only ever true when the search enabled premium names. */
  readonly isPremium: boolean;
  /** The registry's premium price, for an available premium name when premium names are enabled. */
  readonly premiumPrice?: PremiumPrice;
}
