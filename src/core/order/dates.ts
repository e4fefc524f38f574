import { DomainError } from '../common/errors';

const DAY_MS = 86_400_000;
const ISO_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

/** A real calendar date written YYYY-MM-DD (registrars' answers are checked before they are stored). */
export function isIsoDate(text: unknown): text is string {
  if (typeof text !== 'string') return false;
  const match = ISO_DATE.exec(text);
  if (!match) return false;
  const date = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
  return date.toISOString().slice(0, 10) === text;
}

/** YYYY-MM-DD plus whole years; 29 February falls back to 28 February, as registries do. */
export function addYears(date: string, years: number): string {
  const [y, m, d] = date.split('-').map(Number);
  const lastDay = new Date(Date.UTC(y + years, m, 0)).getUTCDate();
  return new Date(Date.UTC(y + years, m - 1, Math.min(d, lastDay))).toISOString().slice(0, 10);
}

/**
 * A list's `from` and `to` filter as whole UTC days, both included: from midnight of `from` to
 * before midnight after `to`; each must be a date written YYYY-MM-DD.
 */
export function wholeDays(from: string | undefined, to: string | undefined): { from?: Date; before?: Date } {
  for (const [name, day] of [
    ['from', from],
    ['to', to],
  ] as const) {
    if (day !== undefined && !isIsoDate(day))
      throw new DomainError('validation_failed', `${name} must be a date written YYYY-MM-DD`);
  }
  return {
    from: from === undefined ? undefined : new Date(`${from}T00:00:00Z`),
    before: to === undefined ? undefined : new Date(Date.parse(`${to}T00:00:00Z`) + DAY_MS),
  };
}

export function isoDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
