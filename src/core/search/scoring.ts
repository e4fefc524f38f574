/**
 * The relevance score of a search result (docs/api.md#suggestion-element `score`), an integer from 1 to 100.
 * docs/search.md explains it for resellers; this is the one place it is computed.
 *
 * - The exact name (the searched label on a TLD) scores 100 on every TLD and is always listed first.
 * - A suggestion starts from the base of its source (the generator's table below, or a registrar's
 *   own 0-100 score, kept below the exact names), then loses
 *     2 points per place its TLD stands after the first searched TLD (capped at 20), and
 *     1 point per character it is longer than the searched label (capped at 20),
 *   and is held between 1 and 99.
 */
export const EXACT_MATCH_SCORE = 100;
export const MAX_SUGGESTION_SCORE = 99;
export const MIN_SCORE = 1;
const TLD_STEP = 2;
const TLD_PENALTY_CAP = 20;
const LENGTH_PENALTY_CAP = 20;
/** A registrar that gives no score is taken as this sure of its suggestion. */
export const DEFAULT_REGISTRAR_SCORE = 70;

/** Base scores of the platform's own generator, by how close the variant stays to the words typed. */
export const GENERATOR_BASE = {
  /** The same words joined differently: `my shop` → `my-shop`, `my-shop` → `myshop`. */
  words: 90,
  /** A common prefix, in table order: get, my, the, try, go. */
  prefix: [80, 79, 78, 76, 75],
  /** A common suffix, in table order: hq, online, app, hub, now, site. */
  suffix: [80, 79, 78, 77, 76, 75],
} as const;

export interface ScoreInput {
  /** The source's base: a GENERATOR_BASE entry or a registrar's own score. */
  readonly base: number;
  /** 0 for the first searched TLD. */
  readonly tldRank: number;
  /** Characters (Unicode) beyond the searched label; negative counts as 0. */
  readonly extraLength: number;
}

export function suggestionScore({ base, tldRank, extraLength }: ScoreInput): number {
  const tldPenalty = Math.min(TLD_STEP * Math.max(0, tldRank), TLD_PENALTY_CAP);
  const lengthPenalty = Math.min(Math.max(0, extraLength), LENGTH_PENALTY_CAP);
  const raw = Math.round(base) - tldPenalty - lengthPenalty;
  return Math.min(MAX_SUGGESTION_SCORE, Math.max(MIN_SCORE, raw));
}

/** A registrar's own score (0-100, or none) as a base: scaled to 0-95, so it never reaches the exact names. */
export function registrarBase(score: number | undefined): number {
  const given =
    typeof score === 'number' && Number.isFinite(score) ? Math.min(100, Math.max(0, score)) : DEFAULT_REGISTRAR_SCORE;
  return Math.round(given * 0.95);
}
