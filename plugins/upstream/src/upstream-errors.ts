import { isResellerApiError, type ResellerApiError } from 'domain-reseller/client';
import type { RegistrarOutcome } from 'domain-reseller';

/**
 * How an upstream error is read depends on what was asked, because money settles on it:
 *
 * - `order` (register, renew, transfer): a definite 4xx means the upstream did nothing, so the
 *   platform may refund. But 409 and 422 may come from our own earlier attempt with the same
 *   Idempotency-Key (still in flight, or done), and 408 from a request that was read: those,
 *   5xx, network failures and timeouts are unknown outcomes and are thrown.
 * - `settle` (domain sync, transfer sync, information): reconciliation refunds on a refusal of
 *   these, so only the upstream saying the domain is not in our account (409) is one. A 401, a
 *   404 from a wrong base URL or a 400 says nothing about the domain: thrown, so nothing is
 *   refunded on a misconfiguration.
 * - `manage` (everything else): any definite 4xx is a refusal with the upstream's message;
 *   credentials (401, 403) and rate limits (429) are faults of ours to log, so thrown.
 */
export type Policy = 'order' | 'settle' | 'manage';

export type Failure = {
  readonly ok: false;
  readonly reason: 'unavailable' | 'refused' | 'pending';
  readonly message: string;
};

/** The upstream's words for a name that cannot be had (our platform: "x.com is not available…", "already in your account"). */
const NOT_AVAILABLE =
  /\bnot available\b|\bunavailable\b|\balready (?:registered|taken|in your account)\b|\bis taken\b/i;

export const refused = (message: string): Failure => ({ ok: false, reason: 'refused', message });
export const pending = (message: string): Failure => ({ ok: false, reason: 'pending', message });

/** The refusal an upstream error amounts to under a policy, or undefined when the outcome is unknown (a fault). */
export function refusalOf(error: unknown, policy: Policy): Failure | undefined {
  if (policy === 'settle')
    return isNotOurs(error)
      ? refused((error as ResellerApiError).serverMessage ?? (error as Error).message)
      : undefined;
  // The SDK checks its input before sending anything: nothing reached the upstream.
  if (error instanceof TypeError) return refused(error.message);
  if (!isResellerApiError(error) || error.kind !== 'http') return undefined;
  const status = error.status;
  const message = error.serverMessage ?? error.message;
  // 2xx with an error body (deployed servers do that) and 3xx redirects: not a definite refusal.
  if (status < 400 || status >= 500 || status === 408) return undefined;
  if (policy === 'order' && (status === 409 || status === 422)) return undefined;
  if (policy === 'manage' && (status === 401 || status === 403 || status === 429)) return undefined;
  if (status === 400 && NOT_AVAILABLE.test(message)) return { ok: false, reason: 'unavailable', message };
  if (status === 401 || status === 403) return refused(`the upstream refused our credentials: ${message}`);
  return refused(message);
}

/**
 * An answer the upstream's own application gave (a JSON `error` body) that is neither success nor
 * a definite refusal: a 5xx, or an error with status 200. Unlike a proxy's 502 or a timeout, the
 * upstream has finished with the request when it answers this way, so asking it whether it holds
 * the domain afterwards tells what happened.
 */
export function isFinishedError(error: unknown): error is ResellerApiError {
  return (
    isResellerApiError(error) &&
    error.kind === 'http' &&
    error.serverMessage !== undefined &&
    (error.status >= 500 || error.status === 200)
  );
}

/** Whether the upstream said the domain is not in our account. */
export function isNotOurs(error: unknown): boolean {
  return isResellerApiError(error) && error.kind === 'http' && error.status === 409;
}

/** A fault as the platform logs it and shows it to resellers: what failed, without secrets. */
export function faultOf(error: unknown, operation: string): Error {
  if (isResellerApiError(error)) {
    const where = error.kind === 'http' ? `HTTP ${error.status}` : error.kind.replace('_', ' ');
    return new Error(`upstream ${operation} failed (${where}): ${error.serverMessage ?? error.message}`, {
      cause: error,
    });
  }
  return error instanceof Error ? error : new Error(`upstream ${operation} failed: ${String(error)}`);
}

/** Runs one upstream call: the answer, a refusal under the policy, or a thrown fault. */
export async function attempt<T extends object>(
  operation: string,
  policy: Policy,
  call: () => Promise<T>,
): Promise<RegistrarOutcome<T>> {
  try {
    return { ok: true, ...(await call()) };
  } catch (error) {
    const refusal = refusalOf(error, policy);
    if (refusal) return refusal;
    throw faultOf(error, operation);
  }
}
