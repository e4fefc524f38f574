import { createHash } from 'node:crypto';
import { DomainError } from '../common/errors';

const KEY = /^[\x21-\x7e]{1,255}$/;

/** An `Idempotency-Key` header value: 1 to 255 printable ASCII characters (a UUID fits). */
export function parseIdempotencyKey(raw: string): string {
  const key = raw.trim();
  if (!KEY.test(key))
    throw new DomainError(
      'validation_failed',
      'Idempotency-Key must be 1 to 255 printable ASCII characters without spaces, like a UUID',
    );
  return key;
}

/**
 * The request a key was first used with, as a sha256 of its normalised command: the same order
 * sent in another encoding (keyed or positional nameservers, display-name contact fields) is the
 * same request; any difference in what is ordered is not.
 */
export function fingerprintOf(action: string, command: unknown): string {
  return createHash('sha256').update(canonicalJson({ action, command })).digest('hex');
}

function canonicalJson(value: unknown): string {
  if (value === undefined) return 'null';
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}
