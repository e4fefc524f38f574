import type { AttemptRecord } from './webhook';

/**
 * Standard Webhooks' schedule: the first attempt at once, then retries 5 s, 5 min, 30 min, 2 h,
 * 5 h, 10 h and 10 h after the previous failure; a delivery failing all eight is dead.
 */
export const RETRY_DELAYS_MS: readonly number[] = [
  0,
  5_000,
  5 * 60_000,
  30 * 60_000,
  2 * 3_600_000,
  5 * 3_600_000,
  10 * 3_600_000,
  10 * 3_600_000,
];

/** An endpoint failing every delivery for this long is disabled. */
export const DISABLE_AFTER_FAILING_MS = 5 * 86_400_000;

/** Retry-After is honoured up to this (a receiver cannot park a delivery for ever). */
const MAX_RETRY_AFTER_MS = 24 * 3_600_000;

/** What one attempt's answer was. */
export type AttemptAnswer =
  | { readonly kind: 'response'; readonly status: number; readonly retryAfter?: string }
  | { readonly kind: 'error'; readonly error: string };

export type EndpointVerdict = 'healthy' | 'failing' | { readonly disable: string };

/** Seconds, or an HTTP date, as Retry-After gives them; undefined when it says neither. */
export function retryAfterMs(value: string | undefined, now: Date): number | undefined {
  if (!value) return undefined;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  const at = Date.parse(trimmed);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * What becomes of a delivery after its `attempt`-th attempt (1 for the first) answered `answer`,
 * and of its endpoint. `random` in [0, 1) spreads retries by ±10 % so that an endpoint that was
 * down is not hit by every delivery at the same second when it comes back.
 */
export function afterAttempt(
  attempt: number,
  answer: AttemptAnswer,
  now: Date,
  failingSince: Date | null,
  random: () => number = Math.random,
): { record: AttemptRecord; endpoint: EndpointVerdict } {
  const status = answer.kind === 'response' ? answer.status : null;
  if (status !== null && status >= 200 && status < 300)
    return { record: { kind: 'delivered', at: now, status }, endpoint: 'healthy' };
  const error = answer.kind === 'error' ? answer.error : `HTTP ${status}`;
  if (status === 410)
    return {
      record: { kind: 'dead', at: now, status, error },
      endpoint: { disable: 'the endpoint answered 410 Gone' },
    };
  const endpoint: EndpointVerdict =
    failingSince !== null && now.getTime() - failingSince.getTime() >= DISABLE_AFTER_FAILING_MS
      ? { disable: 'every delivery failed for 5 days' }
      : 'failing';
  if (attempt >= RETRY_DELAYS_MS.length) return { record: { kind: 'dead', at: now, status, error }, endpoint };
  const scheduled = RETRY_DELAYS_MS[attempt]! * (0.9 + 0.2 * random());
  const asked =
    answer.kind === 'response' && (status === 429 || status === 503) ? retryAfterMs(answer.retryAfter, now) : undefined;
  const delay = asked === undefined ? scheduled : Math.max(scheduled, Math.min(asked, MAX_RETRY_AFTER_MS));
  return {
    record: { kind: 'retry', at: now, nextAttemptAt: new Date(now.getTime() + Math.round(delay)), status, error },
    endpoint,
  };
}
