import type { NameForms } from './search';
import { toLabel, type SearchTerm } from './search-term';
import { GENERATOR_BASE } from './scoring';
import { splitWords } from './words';

export type GeneratedKind = 'words' | 'prefix' | 'suffix';

/** A label the platform's own generator proposes, before it is put on any TLD. */
export interface GeneratedLabel {
  readonly label: NameForms;
  readonly kind: GeneratedKind;
  /** The base score of its kind (scoring.ts GENERATOR_BASE). */
  readonly base: number;
}

export const PREFIXES = ['get', 'my', 'the', 'try', 'go'] as const;
export const SUFFIXES = ['hq', 'online', 'app', 'hub', 'now', 'site'] as const;

/** Latin letters (any accents), digits and hyphens: English affixes read naturally only on such labels. */
const LATIN_LABEL = /^[\p{Script=Latin}\p{M}\p{N}-]+$/u;
const MIN_LETTERS_FOR_AFFIXES = 2;
/** Past this many characters an affix only makes a long name longer. */
const MAX_LENGTH_FOR_AFFIXES = 15;

/**
 * The platform's own suggestions, used for TLDs whose registrar has no suggestions capability.
 * Only variants a person would choose:
 * - the same words joined differently: with hyphens (`my shop`, `bestcoffee` → `my-shop`, `best-coffee`,
 *   splitting run-together words only when every piece is a known word) or without (`my-shop` → `myshop`);
 * - a common prefix (get, my, the, try, go) or suffix (hq, online, app, hub, now, site), joined with a
 *   hyphen when the label has hyphens; never one the label already starts or ends with, never a
 *   word it already contains, never stacked on a label that opens with a prefix word or closes with a
 *   suffix word, only on labels of at most 15 characters, and only on Latin-script labels (no mixed
 *   scripts, which registries refuse).
 * Every result is a valid label (strict UTS-46, at most 63 characters), distinct, and not the label itself;
 * ordered by base score, then shorter first.
 */
export function generateLabels(term: SearchTerm): GeneratedLabel[] {
  const exact = term.label;
  const out = new Map<string, GeneratedLabel>();
  const add = (unicodeText: string, kind: GeneratedKind, base: number) => {
    const label = toLabel(unicodeText);
    if (!label || label.ascii === exact.ascii || out.has(label.ascii)) return;
    out.set(label.ascii, { label, kind, base });
  };

  const words = wordsOf(term);
  if (words.length >= 2) {
    add(words.join('-'), 'words', GENERATOR_BASE.words);
    add(words.join(''), 'words', GENERATOR_BASE.words);
  }

  const text = exact.unicode;
  const letters = (text.match(/\p{L}/gu) ?? []).length;
  if (LATIN_LABEL.test(text) && letters >= MIN_LETTERS_FOR_AFFIXES && text.length <= MAX_LENGTH_FOR_AFFIXES) {
    const joiner = text.includes('-') ? '-' : '';
    const has = (affix: string) => words.includes(affix);
    // No stacking: a label that already opens with one of the prefixes (my shop) gets none
    // (never "the-my-shop"), one that already ends with a suffix word (shop online) gets none.
    const [first] = words;
    const last = words[words.length - 1];
    if (!(PREFIXES as readonly string[]).includes(first)) {
      PREFIXES.forEach((prefix, i) => {
        if (!text.startsWith(prefix) && !has(prefix))
          add(`${prefix}${joiner}${text}`, 'prefix', GENERATOR_BASE.prefix[i]);
      });
    }
    if (!(SUFFIXES as readonly string[]).includes(last)) {
      SUFFIXES.forEach((suffix, i) => {
        if (!text.endsWith(suffix) && !has(suffix))
          add(`${text}${joiner}${suffix}`, 'suffix', GENERATOR_BASE.suffix[i]);
      });
    }
  }

  return [...out.values()].sort(
    (a, b) =>
      b.base - a.base || a.label.unicode.length - b.label.unicode.length || a.label.ascii.localeCompare(b.label.ascii),
  );
}

/** The words typed (`my shop`), else the known words a run-together ASCII label splits into. */
function wordsOf(term: SearchTerm): string[] {
  if (term.words.length >= 2) return [...term.words];
  return splitWords(term.label.ascii) ?? [...term.words];
}
