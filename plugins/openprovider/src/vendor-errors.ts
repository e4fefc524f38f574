import type { RegistrarOutcome } from 'domain-reseller';
import { isOpenproviderError, type OpenproviderError } from './openprovider-client';

export type Failure = Extract<RegistrarOutcome, { ok: false }>;

/**
 * Openprovider's error codes, by the ranges it publishes for its API (doc.openprovider.eu,
 * "API module Error handling"): 1xx customers and authentication, 2xx nameservers, 3xx-7xx
 * domains, 8xx DNS, 9xx authorisation, payments and invoicing. The Swagger document lists no
 * codes, so the plugin reads the range, the HTTP status and the words, never a code alone.
 */
export type VendorErrorClass =
  /** The name cannot be had: taken, reserved, not available. */
  | 'unavailable'
  /** Openprovider's own account cannot pay (9xx about balance or funds): the operator must top it up. */
  | 'balance'
  /** Credentials or permissions (1xx authentication, HTTP 401/403). */
  | 'credentials'
  /** A definite refusal of bad data or policy: nothing happened. */
  | 'refused'
  /** Not a definite answer: Openprovider may have acted. */
  | 'unknown';

const TAKEN =
  /\b(already (registered|exists|in use|taken)|not available|unavailable|is taken|in use|reserved|registered by (another|someone))\b/i;
const BALANCE = /\b(balance|funds|credit|prepaid|payment|insufficient)\b/i;

/** What an Openprovider error amounts to. */
export function classify(error: unknown): VendorErrorClass {
  if (!isOpenproviderError(error)) return 'unknown';
  if (error.kind === 'rate_limited') return 'refused';
  if (error.kind !== 'vendor' || error.status === undefined) return 'unknown';
  const status = error.status;
  // Its application answering 5xx has finished with the request, but may have acted before failing.
  if (status >= 500 || status === 408 || status === 409) return 'unknown';
  if (status === 401 || status === 403) return 'credentials';
  if (status < 400) return 'unknown';
  const code = error.code ?? 0;
  const words = error.desc ?? '';
  if (code >= 900 && code < 1000 && BALANCE.test(words)) return 'balance';
  if (BALANCE.test(words) && /\b(insufficient|not enough|too low)\b/i.test(words)) return 'balance';
  if (code >= 300 && code < 800 && TAKEN.test(words)) return 'unavailable';
  return 'refused';
}

/** The message a reseller sees: Openprovider's own words when it gave some. */
export function vendorMessage(error: OpenproviderError): string {
  return error.desc ? `Openprovider: ${error.desc}` : error.message;
}

export const refused = (message: string): Failure => ({ ok: false, reason: 'refused', message });
export const pending = (message: string): Failure => ({ ok: false, reason: 'pending', message });
export const unavailable = (message: string): Failure => ({ ok: false, reason: 'unavailable', message });

/** A fault as the platform logs it and shows it: what failed, without secrets. */
export function faultOf(error: unknown, operation: string): Error {
  if (isOpenproviderError(error))
    return new Error(`openprovider ${operation} failed: ${error.message}`, { cause: error });
  return error instanceof Error ? error : new Error(`openprovider ${operation} failed: ${String(error)}`);
}
