import { createHash, timingSafeEqual } from 'node:crypto';
import { DomainError } from '../common/errors';
import type { SecretBox } from '../reseller/reseller';

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

/** The MAC purpose of request fingerprints (their own key, derived from the master key). */
const PURPOSE = 'idempotency fingerprint';
/** Marks a keyed fingerprint; one stored before fingerprints were keyed is 64 hex digits (unsalted SHA-256). */
const KEYED = 'h1.';
const UNKEYED = /^[0-9a-f]{64}$/;

/**
 * The request a key was first used with, as a MAC of its normalised command: the same order
 * sent in another encoding (keyed or positional nameservers, display-name contact fields) is the
 * same request; any difference in what is ordered is not. Keyed under the master key (46
 * characters), because the command holds a transfer's EPP code: a plain hash of it could be
 * reversed by trying every short code against the stored value.
 */
export function fingerprintOf(action: string, command: unknown, secrets: Pick<SecretBox, 'mac'>): string {
  return `${KEYED}${secrets.mac(PURPOSE, canonicalJson({ action, command }))}`;
}

/**
 * Whether `stored` is the fingerprint of this request. A key stored before fingerprints were
 * keyed holds the unsalted SHA-256 and is checked as it was made, so a retry across the upgrade
 * is answered as the first request was; such keys are purged with the others once they expire
 * (IDEMPOTENCY_TTL_HOURS). A fingerprint made under a master key since replaced does not match:
 * the retry is refused as another request (422), never answered for one it is not.
 */
export function isFingerprintOf(
  stored: string,
  action: string,
  command: unknown,
  secrets: Pick<SecretBox, 'mac'>,
): boolean {
  const made = UNKEYED.test(stored)
    ? createHash('sha256').update(canonicalJson({ action, command })).digest('hex')
    : fingerprintOf(action, command, secrets);
  return made.length === stored.length && timingSafeEqual(Buffer.from(made), Buffer.from(stored));
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
