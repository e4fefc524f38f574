import { DomainError } from './errors';

/**
 * Money is held as integer minor units (cents) everywhere in the core and the database.
 * The wire and the CLI speak exact decimal strings with two places ("10.00").
 */
export type Minor = number;

const DECIMAL = /^(-)?(\d{1,13})(?:\.(\d{1,2}))?$/;

/** Parses "10", "10.5", "10.50" or "-3.25" into minor units without touching floating point. */
export function parseAmount(text: string, field = 'amount'): Minor {
  const match = DECIMAL.exec(text.trim());
  if (!match)
    throw new DomainError(
      'validation_failed',
      `${field} must be a decimal number with at most 2 decimal places, like 10.00`,
    );
  const [, sign, whole, fraction = ''] = match;
  const minor = Number(whole) * 100 + Number(fraction.padEnd(2, '0'));
  return sign && minor !== 0 ? -minor : minor;
}

/** Formats minor units as the wire's decimal string: 1050 → "10.50". */
export function formatAmount(minor: Minor): string {
  if (!Number.isSafeInteger(minor)) throw new RangeError(`not an integer amount of minor units: ${minor}`);
  const sign = minor < 0 ? '-' : '';
  const abs = Math.abs(minor);
  return `${sign}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, '0')}`;
}
