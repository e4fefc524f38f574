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

export function isoDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}
