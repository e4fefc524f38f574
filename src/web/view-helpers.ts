import { formatAmount } from '../core/common/money';

/** Functions every template may call (through `it`): formatting only, never business rules. */
export const VIEW_HELPERS = {
  /** Minor units as a decimal amount, like 1050 → "10.50". */
  money: (minor: number | null | undefined) => (minor === null || minor === undefined ? '' : formatAmount(minor)),
  /** A date as UTC "2026-11-21 10:30". */
  when: (at: Date | string | null | undefined) => (at ? new Date(at).toISOString().slice(0, 16).replace('T', ' ') : ''),
  day: (at: Date | string | null | undefined) => (at ? new Date(at).toISOString().slice(0, 10) : ''),
  /** A query string from fields, empty ones left out (for links that keep the filters). */
  qs: (fields: Record<string, unknown>) => {
    const params = new URLSearchParams();
    for (const [k, v] of Object.entries(fields))
      if (v !== undefined && v !== null && v !== '') params.set(k, String(v));
    const text = params.toString();
    return text ? `?${text}` : '';
  },
  json: (value: unknown) => (value === null || value === undefined ? '' : JSON.stringify(value, null, 2)),
} as const;
