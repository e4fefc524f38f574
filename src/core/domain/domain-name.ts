import { toASCII, toUnicode } from 'tr46';
import { DomainError } from '../common/errors';

/** A domain name normalised once (UTS-46): ASCII (punycode) for storage and registrars, Unicode for display. */
export interface DomainName {
  readonly ascii: string;
  readonly unicode: string;
  readonly labels: readonly string[];
}

const MAX_INPUT_LENGTH = 1024;
const LDH_LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;
const TLD_LABEL = /^(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

const invalid = (input: string, why: string) =>
  new DomainError('validation_failed', `${JSON.stringify(input.slice(0, 80))} is not a valid domain name: ${why}`);

// One order parses its name and nameservers several times over (HTTP, catalogue, order), and each
// parse is two UTS-46 passes, which cost more than the rest of the order's validation
// (bench/RESULTS.md, orders). The answer depends on the input alone, so valid names are
// remembered, frozen; a refused input is parsed again each time and never fills the memo, and
// neither does an input longer than any plain name (characters UTS-46 maps to nothing could
// make a kilobyte of input a valid name).
const PARSED_KEPT = 4096;
const REMEMBERED_LENGTH = 255;
const parsed = new Map<string, DomainName>();

/**
 * Normalises a domain as a reseller or a billing platform may send it: any case, Unicode or
 * punycode, percent-decoded already, an optional trailing dot. Rejects what no registry accepts:
 * underscores, leading or trailing hyphens, empty labels, labels over 63 characters, names over
 * 253 characters, IP addresses and numeric TLDs.
 */
export function parseDomainName(input: string, options: { minLabels?: number } = {}): DomainName {
  const minLabels = options.minLabels ?? 2;
  if (typeof input !== 'string') throw new DomainError('validation_failed', 'domain is required');
  if (input.length > MAX_INPUT_LENGTH) throw invalid(input, 'it is too long');
  if (input.length > REMEMBERED_LENGTH) return normalise(input, minLabels);
  const key = `${minLabels}\u0000${input}`;
  let name = parsed.get(key);
  if (name === undefined) {
    name = normalise(input, minLabels);
    if (parsed.size >= PARSED_KEPT) parsed.clear();
    parsed.set(key, name);
  }
  return name;
}

function normalise(input: string, minLabels: number): DomainName {
  if (input.trim() === '') throw new DomainError('validation_failed', 'domain is required');
  const trimmed = input.trim().replace(/\.$/, '');
  const plain = plainAsciiName(trimmed, minLabels);
  if (plain) return plain;
  const ascii = toASCII(trimmed, {
    checkHyphens: true,
    checkBidi: true,
    checkJoiners: true,
    useSTD3ASCIIRules: true,
    verifyDNSLength: true,
    transitionalProcessing: false,
  });
  if (ascii === null) throw invalid(input, 'it breaks the IDNA (UTS-46) rules for host names');
  const labels = ascii.split('.');
  if (labels.length < minLabels) throw invalid(input, 'it needs a name and a TLD, like example.com');
  for (const label of labels) {
    if (!LDH_LABEL.test(label)) throw invalid(input, `the label "${label}" is not allowed`);
  }
  const tld = labels[labels.length - 1];
  if (!TLD_LABEL.test(tld)) throw invalid(input, `"${tld}" cannot be a top-level domain`);
  const { domain: unicode, error } = toUnicode(ascii, {
    checkHyphens: true,
    checkBidi: true,
    checkJoiners: true,
    useSTD3ASCIIRules: true,
    transitionalProcessing: false,
  });
  if (error) throw invalid(input, 'it breaks the IDNA (UTS-46) rules for host names');
  return Object.freeze({ ascii, unicode, labels: Object.freeze(labels) });
}

const ASCII_NAME = /^[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*$/;

/**
 * A name of ASCII letters, digits and hyphens (what nearly every request sends, each order a new
 * one) answered without the two UTS-46 passes, which would map its letters to lower case and
 * change nothing else: there is no Unicode to map, normalise or encode, no punycode label to
 * decode, no bidi or joiner character to check. What is left of their checks is the rules below
 * (LDH labels of 1 to 63 characters, none with "--" in third and fourth place, 253 characters in
 * all), with the TLD rule of `normalise`. Undefined for anything else, and for a name any rule
 * refuses: `normalise` then takes the full path, which says why.
 */
function plainAsciiName(trimmed: string, minLabels: number): DomainName | undefined {
  if (trimmed.length > 253 || !ASCII_NAME.test(trimmed)) return undefined;
  const ascii = trimmed.toLowerCase();
  const labels = ascii.split('.');
  if (labels.length < minLabels) return undefined;
  for (const label of labels) if (!LDH_LABEL.test(label) || label.startsWith('--', 2)) return undefined;
  if (!TLD_LABEL.test(labels[labels.length - 1]!)) return undefined;
  return Object.freeze({ ascii, unicode: ascii, labels: Object.freeze(labels) });
}

/** Normalises a TLD as written in the catalogue or a request: ".com", "com", ".CO.UK", ".рф". Returns ".com" form in ASCII. */
export function parseTld(input: string): { ascii: string; unicode: string } {
  if (typeof input !== 'string') throw new DomainError('validation_failed', 'tld is required');
  const bare = input.trim().replace(/^\./, '');
  if (bare === '') throw new DomainError('validation_failed', 'tld is required');
  try {
    const name = parseDomainName(bare, { minLabels: 1 });
    return { ascii: `.${name.ascii}`, unicode: `.${name.unicode}` };
  } catch {
    throw new DomainError(
      'validation_failed',
      `${JSON.stringify(input.slice(0, 80))} is not a valid TLD; write it like .com`,
    );
  }
}

/** A registrable name split against the catalogue: exactly one label in front of a known TLD. */
export interface RegistrableDomain extends DomainName {
  readonly sld: string;
  readonly tld: string;
}

/**
 * Splits a name on the longest TLD the catalogue knows (".co.uk" before ".uk").
 * Returns null when no known TLD matches; throws when the name has extra labels (www.example.com).
 */
export function splitRegistrable(name: DomainName, isKnownTld: (tld: string) => boolean): RegistrableDomain | null {
  for (let i = 1; i < name.labels.length; i++) {
    const tld = `.${name.labels.slice(i).join('.')}`;
    if (!isKnownTld(tld)) continue;
    if (i !== 1) {
      throw new DomainError(
        'validation_failed',
        `${name.unicode} is not a registrable name: write it as one name in front of ${tld}, like example${tld}`,
      );
    }
    return { ...name, sld: name.labels[0], tld };
  }
  return null;
}
