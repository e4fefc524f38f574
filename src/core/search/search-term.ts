import { toASCII, toUnicode } from 'tr46';
import { parseTld } from '../domain/domain-name';
import { DomainError } from '../common/errors';
import type { NameForms } from './search';

/** A search term reduced to what a search needs: one registrable label and, when the term named one, its TLD. */
export interface SearchTerm {
  /** The label searched for, exactly as it will be tried on every TLD. */
  readonly label: NameForms;
  /** The words the customer typed or the label splits into at hyphens (Unicode, lower case); at least one. */
  readonly words: readonly string[];
  /** The TLD of a full-name term (`shop.com`), tried first. */
  readonly tld?: NameForms;
}

/** Longer than any domain name (253): nothing a person searches for. */
export const MAX_TERM_LENGTH = 253;
const MAX_LABEL_LENGTH = 63;
const LDH_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const LAX = {
  useSTD3ASCIIRules: false,
  checkHyphens: false,
  checkBidi: false,
  checkJoiners: false,
  transitionalProcessing: false,
} as const;
const STRICT = {
  useSTD3ASCIIRules: true,
  checkHyphens: true,
  checkBidi: true,
  checkJoiners: true,
  verifyDNSLength: true,
  transitionalProcessing: false,
} as const;

const bad = (message: string) => new DomainError('validation_failed', message);
const quote = (text: string) => JSON.stringify(text.length > 40 ? `${text.slice(0, 40)}…` : text);

/**
 * Turns one label of Unicode text into both forms under the strict UTS-46 rules registries
 * apply, or null when no registry would accept it.
 */
export function toLabel(unicodeText: string): NameForms | null {
  if (unicodeText === '' || unicodeText.includes('.')) return null;
  // Plain LDH labels are their own ASCII and Unicode forms; UTS-46 processing is the costliest
  // step of a search, so it is kept for labels that need it (non-ASCII, xn--, hyphens at 3-4).
  if (LDH_LABEL.test(unicodeText) && unicodeText.slice(2, 4) !== '--')
    return { ascii: unicodeText, unicode: unicodeText };
  const ascii = toASCII(unicodeText, STRICT);
  if (ascii === null || !LDH_LABEL.test(ascii)) return null;
  const { domain: unicode, error } = toUnicode(ascii, STRICT);
  return error ? null : { ascii, unicode };
}

/**
 * Normalises a search term (docs/api.md#domain-suggestions) as a customer types it into a search box:
 * - `punyCodeSearchTerm` wins over `searchTerm` when it is not blank;
 * - UTS-46 mapping (case, width, `。` dots), punycode labels decoded, a scheme or path dropped;
 * - a full name (`shop.com`, `www.shop.com`) gives the label and its TLD: the longest suffix
 *   `isKnownTld` accepts, else everything after the first label;
 * - spaces, underscores and punctuation separate words and are dropped from the label
 *   (`my shop` → `myshop`); hyphen runs collapse, edge hyphens go.
 * Throws a 400-class error for a missing term, an absurd length, a term with nothing
 * searchable left, or one no registry would accept.
 */
export function parseSearchTerm(
  input: { readonly searchTerm?: string; readonly punyCodeSearchTerm?: string },
  isKnownTld: (asciiTld: string) => boolean,
): SearchTerm {
  const puny = input.punyCodeSearchTerm?.trim() ?? '';
  const raw = puny !== '' ? puny : (input.searchTerm?.trim() ?? '');
  const field = puny !== '' ? 'punyCodeSearchTerm' : 'searchTerm';
  if (raw === '') throw bad('searchTerm is required');
  if (raw.length > MAX_TERM_LENGTH) throw bad(`${field} is too long: at most ${MAX_TERM_LENGTH} characters`);

  const withoutUrl = raw.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '').replace(/[/?#].*$/s, '');
  const mapped = toUnicode(withoutUrl, LAX);
  if (mapped.error) throw bad(`${field} ${quote(raw)} holds a label that is not valid punycode`);

  let labels = mapped.domain
    .split('.')
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (labels.length > 2 && labels[0] === 'www') labels = labels.slice(1);
  let front = labels;
  let tld: NameForms | undefined;
  if (labels.length >= 2) {
    const split = splitOffTld(labels, isKnownTld, field, raw);
    front = split.front;
    tld = split.tld;
  }
  if (front.length > 1) {
    throw bad(`${field} must be one name (like shop) or one name and its TLD (like shop.com); got ${quote(raw)}`);
  }

  const text = front[0] ?? '';
  const words = text.split(/[^\p{L}\p{M}\p{N}]+/u).filter((w) => w !== '');
  const joined = text
    .replace(/[^\p{L}\p{M}\p{N}-]+/gu, '')
    .replace(/-{2,}/g, '-')
    .replace(/^-+|-+$/g, '');
  if (joined === '') throw bad(`${field} ${quote(raw)} has no letters or digits to search for`);
  const asciiLength = toASCII(joined, LAX)?.length ?? joined.length;
  if (asciiLength > MAX_LABEL_LENGTH)
    throw bad(`${field} is too long: a name has at most ${MAX_LABEL_LENGTH} characters (in punycode)`);
  const label = toLabel(joined);
  if (!label) throw bad(`${field} ${quote(raw)} cannot be used in a domain name (IDNA rules)`);
  return { label, words, ...(tld && { tld }) };
}

/**
 * The longest suffix the catalogue (or the request) knows is the TLD (`shop.co.uk` → `.co.uk`
 * before `.uk`). When none is known, everything after the first label is taken as the TLD, so
 * it can be reported `tld not supported` rather than refused.
 */
function splitOffTld(
  labels: string[],
  isKnownTld: (tld: string) => boolean,
  field: string,
  raw: string,
): { front: string[]; tld: NameForms } {
  for (let i = 1; i < labels.length; i++) {
    const candidate = tryTld(labels.slice(i).join('.'));
    if (candidate && isKnownTld(candidate.ascii)) return { front: labels.slice(0, i), tld: candidate };
  }
  const rest = labels.slice(1).join('.');
  const candidate = tryTld(rest);
  if (!candidate) throw bad(`${field} ${quote(raw)} ends in "${rest}", which cannot be a TLD`);
  return { front: labels.slice(0, 1), tld: candidate };
}

function tryTld(text: string): NameForms | null {
  try {
    return parseTld(text);
  } catch {
    return null;
  }
}
