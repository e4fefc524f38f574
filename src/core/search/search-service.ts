import type { PremiumQuote, Tld, TldPrice } from '../catalogue/catalogue';
import { premiumPrice, type PremiumRule } from '../catalogue/premium';
import { parseDomainName, parseTld, splitRegistrable } from '../domain/domain-name';
import { type GuardedRegistrar, type GuardedRegistrars, isRegistrarFault } from '../registrar/guarded-registrar';
import { supports, type Suggestion } from '../registrar/plugin';
import { DomainError } from '../common/errors';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { UnitOfWork } from '../common/unit-of-work';
import type { AvailabilityAnswer, AvailabilityChecker, AvailabilityRequest } from './availability-checker';
import { generateLabels } from './candidate-generator';
import { EXACT_MATCH_SCORE, registrarBase, suggestionScore } from './scoring';
import type { NameForms, PeriodPrices, PremiumPrice, SearchQuery, SearchResult, SearchStatus } from './search';
import { parseSearchTerm, type SearchTerm } from './search-term';

export interface SearchServiceOptions {
  /** The platform currency, quoted with premium prices. */
  readonly currency: string;
  /**
   * Keep the premium prices quoted to a reseller for this long, so that an order honours them
   * without premiumCost (docs/orders.md#premium-quotes); absent or 0 keeps none.
   */
  readonly premiumQuotes?: { readonly clock: Clock; readonly lifetimeMs: number };
}

export const DEFAULT_MAX_RESULTS = 25;
export const MAX_RESULTS = 100;
export const MAX_TLDS = 100;
/** Without `tldsToInclude`, these come first (then the rest of the group's TLDs, alphabetically). */
const POPULAR_TLDS = ['.com', '.net', '.org'];
/** DNS bounds, reported for a TLD the group is not offered (its own rules are not disclosed). */
const DNS_MIN_LENGTH = 1;
const DNS_MAX_LENGTH = 63;

type Mode = 'suggestions' | 'lookup';

interface OfferedTld {
  readonly tld: Tld;
  readonly forms: NameForms;
  readonly prices: readonly PeriodPrices[];
}

interface PlannedTld {
  readonly forms: NameForms;
  /** Position in the searched order; 0 is first. */
  readonly rank: number;
  /** Undefined when the TLD is not offered to the group. */
  readonly offered?: OfferedTld;
}

type OfferedPlan = PlannedTld & { readonly offered: OfferedTld };
const isOffered = (tld: PlannedTld): tld is OfferedPlan => tld.offered !== undefined;

interface Candidate {
  readonly sld: NameForms;
  readonly tld: OfferedPlan;
  readonly domain: NameForms;
  readonly score: number;
}

/**
 * Domain search (docs/api.md#search): the exact names on every
 * searched TLD first, then suggestions, each with its availability, the group's prices and the
 * TLD's rules. docs/search.md describes inputs, scoring and caching.
 */
export class SearchService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly registrars: GuardedRegistrars,
    private readonly availability: AvailabilityChecker,
    private readonly logger: Logger,
    private readonly options: SearchServiceOptions,
  ) {}

  /**
   * docs/api.md#domain-suggestions: the exact names, then up to `maxResults` available suggestions
   * by relevance. Premium prices quoted to `resellerId` are kept for its orders (docs/orders.md#premium-quotes).
   */
  async suggestions(groupId: string, query: SearchQuery, resellerId?: string): Promise<SearchResult[]> {
    return this.keepQuotes(resellerId, await this.search(groupId, query, 'suggestions'));
  }

  /**
   * docs/api.md#lookup: the availability of the exact names only, in the same
   * element shape. A full-name term without `tldsToInclude` looks up that one name.
   */
  async lookup(groupId: string, query: SearchQuery, resellerId?: string): Promise<SearchResult[]> {
    return this.keepQuotes(resellerId, await this.search(groupId, query, 'lookup'));
  }

  /**
   * Issue 26 item 6: a billing module that shows its customer our premium price and then orders
   * without premiumCost (the deployed WHMCS module) is honoured up to the price it was shown. A
   * quote that cannot be kept costs the search nothing: the order then needs premiumCost.
   */
  private async keepQuotes(resellerId: string | undefined, results: SearchResult[]): Promise<SearchResult[]> {
    const keep = this.options.premiumQuotes;
    if (!keep || keep.lifetimeMs <= 0 || resellerId === undefined) return results;
    const quotedAt = keep.clock.now();
    const expiresAt = new Date(quotedAt.getTime() + keep.lifetimeMs);
    const quotes: PremiumQuote[] = results.flatMap(({ domain, premiumPrice }) =>
      premiumPrice
        ? (['register', 'renew', 'transfer'] as const).flatMap((action) => {
            const price = premiumPrice[action];
            return price === undefined
              ? []
              : [{ resellerId, domain: domain.ascii, action, price, quotedAt, expiresAt }];
          })
        : [],
    );
    if (quotes.length === 0) return results;
    try {
      await this.uow.run((repos) => repos.catalogue.savePremiumQuotes(quotes));
    } catch (error) {
      this.logger.warn({ err: error, resellerId }, 'premium quotes could not be kept; orders need premiumCost');
    }
    return results;
  }

  private async search(groupId: string, query: SearchQuery, mode: Mode): Promise<SearchResult[]> {
    const maxResults = checkMaxResults(query.maxResults);
    const requested = parseRequestedTlds(query.tldsToInclude);
    const offered = await this.offeredTlds(groupId);
    const term = parseSearchTerm(query, (tld) => offered.has(tld) || requested.some((r) => r.ascii === tld));
    const plan = planTlds(term, requested, offered, mode);
    const premiumEnabled = query.premiumEnabled === true;
    // docs/search.md#availability: the price quoted for a premium name is the group's (its premium rule applied), the one an order charges.
    const premium: PremiumQuoting = premiumEnabled
      ? { enabled: true, rule: await this.uow.read.catalogue.premiumRule(groupId) }
      : { enabled: false };

    const exact = plan.map((tld) => ({ tld, domain: join(term.label, tld.forms) }));
    const exactRequests: AvailabilityRequest[] = exact.flatMap(({ tld, domain }) =>
      isOffered(tld) && lengthProblem(term.label, tld.offered.tld) === undefined
        ? [{ registrar: tld.offered.tld.registrar, domain: domain.ascii }]
        : [],
    );

    let generated: Candidate[] = [];
    let fromRegistrars: Promise<{ candidates: Candidate[]; answers: Map<string, AvailabilityAnswer> }> =
      Promise.resolve({ candidates: [], answers: new Map() });
    if (mode === 'suggestions') {
      const budget = Math.min(maxResults * 3, 150);
      const { suggesting, others } = this.splitBySuggestionsCapability(plan);
      generated = generatedCandidates(term, others, budget);
      fromRegistrars = this.registrarSuggestions(term, suggesting, budget);
    }

    const [answers, suggested] = await Promise.all([
      this.availability.check([...exactRequests, ...generated.map(toRequest)]),
      fromRegistrars,
    ]);
    for (const [name, answer] of suggested.answers) answers.set(name, answer);

    const exactResults = exact.map(({ tld, domain }) =>
      this.exactResult(term.label, tld, domain, answers.get(domain.ascii), premium),
    );
    if (mode === 'lookup') return exactResults;

    const seen = new Set(exact.map(({ domain }) => domain.ascii));
    const suggestions: SearchResult[] = [];
    for (const c of byRelevance(mergeCandidates([...generated, ...suggested.candidates]))) {
      if (suggestions.length === maxResults) break;
      if (seen.has(c.domain.ascii)) continue;
      // A suggestion is an offer: only names a customer can have are listed.
      const result = this.toResult(c, answers.get(c.domain.ascii), premium, false);
      if (result.status === 'available') suggestions.push(result);
    }
    return [...exactResults, ...suggestions];
  }

  /** The group's offered TLDs (at least one register price) with their prices; two reads, no per-TLD queries. */
  private async offeredTlds(groupId: string): Promise<Map<string, OfferedTld>> {
    const [tlds, prices] = await Promise.all([
      this.uow.read.catalogue.listTlds(),
      this.uow.read.catalogue.prices(groupId),
    ]);
    const byTld = new Map<string, TldPrice[]>();
    for (const price of prices) byTld.set(price.tld, [...(byTld.get(price.tld) ?? []), price]);
    const offered = new Map<string, OfferedTld>();
    for (const tld of tlds) {
      const periods = periodPrices(byTld.get(tld.tld) ?? []);
      if (periods.length > 0) offered.set(tld.tld, { tld, forms: parseTld(tld.tld), prices: periods });
    }
    return offered;
  }

  /** TLDs whose registrar suggests names itself, per registrar; the rest get the platform's generator. */
  private splitBySuggestionsCapability(plan: readonly PlannedTld[]): {
    suggesting: Map<GuardedRegistrar, OfferedPlan[]>;
    others: OfferedPlan[];
  } {
    const suggesting = new Map<GuardedRegistrar, OfferedPlan[]>();
    const others: OfferedPlan[] = [];
    for (const tld of plan) {
      if (!isOffered(tld)) continue;
      const plugin = this.pluginOrUndefined(tld.offered.tld.registrar);
      if (plugin && supports(plugin, 'suggestions')) suggesting.set(plugin, [...(suggesting.get(plugin) ?? []), tld]);
      else if (plugin) others.push(tld);
    }
    return { suggesting, others };
  }

  private pluginOrUndefined(id: string): GuardedRegistrar | undefined {
    try {
      return this.registrars.get(id);
    } catch {
      return undefined;
    }
  }

  /**
   * Each suggesting registrar is asked for names on its own TLDs, all at once, each under its
   * deadline; its names are then checked. A registrar that fails adds no suggestions.
   */
  private async registrarSuggestions(
    term: SearchTerm,
    suggesting: Map<GuardedRegistrar, OfferedPlan[]>,
    budget: number,
  ) {
    const perRegistrar = await Promise.all(
      [...suggesting].map(async ([registrar, tlds]) => {
        const own = new Map(tlds.map((t) => [t.forms.ascii, t]));
        let suggestions: Suggestion[];
        try {
          suggestions = await registrar.suggestions!.suggest({
            term: term.label.ascii,
            tlds: [...own.keys()],
            limit: budget,
          });
        } catch (error) {
          this.logger.warn(
            { registrar: registrar.id, err: isRegistrarFault(error) ? error.detail : String(error) },
            'search: registrar suggestions failed; none from it',
          );
          return [];
        }
        return suggestedCandidates(term, suggestions, own, budget);
      }),
    );
    const candidates = best(perRegistrar.flat(), budget);
    const answers =
      candidates.length > 0
        ? await this.availability.check(candidates.map(toRequest))
        : new Map<string, AvailabilityAnswer>();
    return { candidates, answers };
  }

  private exactResult(
    label: NameForms,
    tld: PlannedTld,
    domain: NameForms,
    answer: AvailabilityAnswer | undefined,
    premium: PremiumQuoting,
  ): SearchResult {
    if (!isOffered(tld)) {
      return {
        domain,
        sld: label,
        tld: tld.forms,
        status: 'tld_not_supported',
        isExactMatch: true,
        score: EXACT_MATCH_SCORE,
        isValidDomain: true,
        errorMessage: `${tld.forms.unicode} is not offered to your account`,
        prices: [],
        minLength: DNS_MIN_LENGTH,
        maxLength: DNS_MAX_LENGTH,
        isPremium: false,
      };
    }
    const candidate: Candidate = { sld: label, tld, domain, score: EXACT_MATCH_SCORE };
    return this.toResult(candidate, answer, premium, true);
  }

  private toResult(
    c: Candidate,
    answer: AvailabilityAnswer | undefined,
    premium: PremiumQuoting,
    isExactMatch: boolean,
  ): SearchResult {
    const { tld, prices } = c.tld.offered;
    const problem = lengthProblem(c.sld, tld);
    const given: AvailabilityAnswer = answer ?? { status: 'unknown', isPremium: false, failure: 'no_answer' };
    let status: SearchStatus = problem ? 'unknown' : given.status;
    let errorMessage = problem ?? (status === 'unknown' ? unknownMessage(given, tld.tld) : '');
    let premiumPrice: SearchResult['premiumPrice'];
    if (!problem && given.isPremium && status === 'available') {
      const quoted = premium.enabled && premium.rule && given.premiumPrice && quote(premium.rule, given.premiumPrice);
      if (!premium.enabled) {
        // The platform's rule: without premiumEnabled a premium name is never offered as available.
        status = 'reserved';
        errorMessage = `${c.domain.unicode} is a premium name; premium names are not enabled for this search`;
      } else if (!premium.rule) {
        status = 'reserved';
        errorMessage = `${c.domain.unicode} is a premium name; premium names are not sold to your account`;
      } else if (quoted) {
        premiumPrice = { ...quoted, currency: this.options.currency };
      } else if (given.premiumPrice) {
        status = 'reserved';
        errorMessage = `${c.domain.unicode} is a premium name at a cost your account's premium prices do not cover`;
      } else {
        status = 'reserved';
        errorMessage = `${c.domain.unicode} is a premium name and the registry gave no price for it`;
      }
    }
    const result: SearchResult = {
      domain: c.domain,
      sld: c.sld,
      tld: c.tld.forms,
      status,
      isExactMatch,
      score: c.score,
      isValidDomain: problem === undefined,
      errorMessage,
      prices,
      minLength: tld.minLength,
      maxLength: tld.maxLength,
      isPremium: !problem && premium.enabled && given.isPremium,
    };
    return premiumPrice ? { ...result, premiumPrice } : result;
  }
}

/** What a search quotes for premium names: nothing without premiumEnabled; the group's rule otherwise. */
type PremiumQuoting = { readonly enabled: false } | { readonly enabled: true; readonly rule: PremiumRule | undefined };

/** The registry's premium costs with the group's rule applied; undefined when the rule does not sell the name. */
function quote(
  rule: PremiumRule,
  cost: NonNullable<AvailabilityAnswer['premiumPrice']>,
): Omit<PremiumPrice, 'currency'> | undefined {
  const register = premiumPrice(rule, cost.register);
  if (register === undefined) return undefined;
  const renew = cost.renew === undefined ? undefined : premiumPrice(rule, cost.renew);
  const transfer = cost.transfer === undefined ? undefined : premiumPrice(rule, cost.transfer);
  return {
    register,
    ...(renew !== undefined && { renew }),
    ...(transfer !== undefined && { transfer }),
  };
}

function checkMaxResults(value: number | undefined): number {
  if (value === undefined) return DEFAULT_MAX_RESULTS;
  if (!Number.isInteger(value) || value < 1 || value > MAX_RESULTS) {
    throw new DomainError(
      'validation_failed',
      `suggestionSettings maxResults must be a whole number from 1 to ${MAX_RESULTS}`,
    );
  }
  return value;
}

function parseRequestedTlds(input: readonly string[] | undefined): NameForms[] {
  const given = (input ?? []).map((t) => t.trim()).filter((t) => t !== '');
  if (given.length > MAX_TLDS)
    throw new DomainError(
      'validation_failed',
      `tldsToInclude lists ${given.length} TLDs; at most ${MAX_TLDS} are allowed`,
    );
  const seen = new Set<string>();
  const tlds: NameForms[] = [];
  for (const text of given) {
    const tld = parseTld(text);
    if (!seen.has(tld.ascii)) tlds.push(tld);
    seen.add(tld.ascii);
  }
  return tlds;
}

/**
 * The searched TLDs in order: the term's own TLD first, then `tldsToInclude` as sent, or, without
 * it, every offered TLD (.com, .net, .org first). A lookup of a full name without `tldsToInclude`
 * is that one name.
 */
function planTlds(
  term: SearchTerm,
  requested: readonly NameForms[],
  offered: ReadonlyMap<string, OfferedTld>,
  mode: Mode,
): PlannedTld[] {
  const order: NameForms[] = term.tld ? [term.tld] : [];
  if (requested.length > 0) order.push(...requested);
  else if (!(mode === 'lookup' && term.tld)) {
    const all = [...offered.values()].map((o) => o.forms);
    const popular = POPULAR_TLDS.flatMap((p) => all.filter((f) => f.ascii === p));
    order.push(...popular, ...all.filter((f) => !POPULAR_TLDS.includes(f.ascii)));
  }
  const seen = new Set<string>();
  const plan: PlannedTld[] = [];
  for (const forms of order) {
    if (seen.has(forms.ascii)) continue;
    seen.add(forms.ascii);
    const entry = offered.get(forms.ascii);
    plan.push({ forms: entry?.forms ?? forms, rank: plan.length, ...(entry && { offered: entry }) });
  }
  return plan;
}

/** The generator's labels on every TLD without registrar suggestions, best first, at most `budget`. */
function generatedCandidates(term: SearchTerm, tlds: readonly OfferedPlan[], budget: number): Candidate[] {
  if (tlds.length === 0) return [];
  const candidates: Candidate[] = [];
  for (const { label, base } of generateLabels(term)) {
    for (const tld of tlds) {
      if (lengthProblem(label, tld.offered.tld)) continue;
      const score = suggestionScore({
        base,
        tldRank: tld.rank,
        extraLength: label.unicode.length - term.label.unicode.length,
      });
      candidates.push({ sld: label, tld, domain: join(label, tld.forms), score });
    }
  }
  return best(candidates, budget);
}

/** A registrar's suggestions, kept only when they are names on one of its searched TLDs that fit the TLD's rules. */
function suggestedCandidates(
  term: SearchTerm,
  suggestions: readonly Suggestion[],
  own: ReadonlyMap<string, OfferedPlan>,
  budget: number,
): Candidate[] {
  const candidates: Candidate[] = [];
  for (const s of suggestions.slice(0, budget * 2)) {
    let name;
    let split;
    try {
      name = parseDomainName(s.domain);
      split = splitRegistrable(name, (t) => own.has(t));
    } catch {
      continue;
    }
    const tld = split && own.get(split.tld);
    if (!split || !tld) continue;
    const sld = { ascii: split.sld, unicode: name.unicode.split('.')[0] };
    if (sld.ascii === term.label.ascii || lengthProblem(sld, tld.offered.tld)) continue;
    if (builtFromPunycode(sld.ascii, term)) continue;
    const score = suggestionScore({
      base: registrarBase(s.score),
      tldRank: tld.rank,
      extraLength: sld.unicode.length - term.label.unicode.length,
    });
    candidates.push({ sld, tld, domain: join(sld, tld.forms), score });
  }
  return best(candidates, budget);
}

/**
 * A suggestion made by gluing text to the punycode of the term (`getxn--bcher-kva`,
 * `xn--bcher-kvahq` for `bücher`): valid LDH, but nothing a person searching for `bücher` means
 * (the second decodes to `büýÿcher`). Candidates come from the Unicode label, each whole
 * candidate converted with UTS-46 (docs/search.md); a registrar that works on the ASCII form
 * gets these dropped.
 */
function builtFromPunycode(sldAscii: string, term: SearchTerm): boolean {
  if (sldAscii.indexOf('xn--') > 0) return true;
  const termAscii = term.label.ascii;
  return termAscii.startsWith('xn--') && sldAscii !== termAscii && sldAscii.includes(termAscii);
}

/** De-duplicates by name, keeping the best score. */
function mergeCandidates(candidates: readonly Candidate[]): Candidate[] {
  const byName = new Map<string, Candidate>();
  for (const c of candidates) {
    const existing = byName.get(c.domain.ascii);
    if (!existing || c.score > existing.score) byName.set(c.domain.ascii, c);
  }
  return [...byName.values()];
}

/** Best first: score, then the TLD's place in the search, then the name. */
function byRelevance(candidates: Candidate[]): Candidate[] {
  return candidates.sort(
    (a, b) => b.score - a.score || a.tld.rank - b.tld.rank || (a.domain.ascii < b.domain.ascii ? -1 : 1),
  );
}

function best(candidates: Candidate[], budget: number): Candidate[] {
  return byRelevance(mergeCandidates(candidates)).slice(0, budget);
}

const toRequest = (c: Candidate): AvailabilityRequest => ({
  registrar: c.tld.offered.tld.registrar,
  domain: c.domain.ascii,
});
const join = (sld: NameForms, tld: NameForms): NameForms => ({
  ascii: `${sld.ascii}${tld.ascii}`,
  unicode: `${sld.unicode}${tld.unicode}`,
});

/** The catalogue's label-length rule (ASCII length, as orders check it), or undefined when it holds. */
function lengthProblem(sld: NameForms, tld: Tld): string | undefined {
  const length = sld.ascii.length;
  if (length >= tld.minLength && length <= tld.maxLength) return undefined;
  return `names under ${tld.tld} must be ${tld.minLength} to ${tld.maxLength} characters long`;
}

/** Periods that have a register price, ascending, with the renew and transfer prices of the same period. */
function periodPrices(rows: readonly TldPrice[]): PeriodPrices[] {
  const periods = new Map<number, { register?: number; renew?: number; transfer?: number }>();
  for (const row of rows) periods.set(row.period, { ...periods.get(row.period), [row.action]: row.price });
  return [...periods]
    .filter(([, p]) => p.register !== undefined)
    .sort(([a], [b]) => a - b)
    .map(([period, p]) => ({
      period,
      register: p.register as number,
      ...(p.renew !== undefined && { renew: p.renew }),
      ...(p.transfer !== undefined && { transfer: p.transfer }),
    }));
}

function unknownMessage(answer: AvailabilityAnswer, tld: string): string {
  switch (answer.failure) {
    case 'timeout':
      return `The registrar for ${tld} did not answer in time; try again`;
    case 'error':
      return `The registrar for ${tld} could not check this name; try again`;
    case 'not_installed':
      return `The registrar for ${tld} is not available`;
    default:
      return `The registrar for ${tld} could not tell whether this name is free`;
  }
}
