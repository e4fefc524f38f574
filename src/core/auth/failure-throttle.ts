import type { Clock } from '../common/clock';

export interface ThrottlePolicy {
  /** Failed attempts allowed per (client address, username) pair inside one window before the pair is blocked. */
  readonly maxFailures: number;
  /** Failed attempts allowed per client address, whatever the usernames, before the address is blocked. */
  readonly maxFailuresPerAddress: number;
  readonly windowSeconds: number;
  readonly blockSeconds: number;
}

/** The per-address limit is this many times the per-pair limit (AUTH_MAX_FAILURES). */
const ADDRESS_FAILURES_FACTOR = 5;

/**
 * The policy for a limit per (address, username) pair. One address may serve several resellers'
 * billing platforms (a host, an office NAT): one misconfigured account must not block the others,
 * so the address alone gets `ADDRESS_FAILURES_FACTOR` times the room.
 */
export function throttlePolicy(perPair: Omit<ThrottlePolicy, 'maxFailuresPerAddress'>): ThrottlePolicy {
  return { ...perPair, maxFailuresPerAddress: perPair.maxFailures * ADDRESS_FAILURES_FACTOR };
}

/** Who tried to authenticate: the client address and the username it sent (empty when none). */
export interface Attempt {
  readonly address: string;
  readonly username: string;
}

interface Counter {
  failures: number;
  windowStart: number;
  blockedUntil: number;
}

/**
 * Counts failed authentications per client address and per (address, username) pair, and blocks
 * one for a while once it fails too often. Never per username alone: that would let anyone who
 * knows a reseller's email lock its billing platform out from elsewhere (ADR 3). An attacker
 * slows only itself; guessing stays hopeless because a key has 192 random bits.
 *
 * In memory, per process: with several processes an attacker gets at most the limit per window
 * on each, which still makes guessing a key hopeless; the throttle exists to stop noisy
 * scanners, log floods and wasted lookups.
 */
export class FailureThrottle {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly policy: ThrottlePolicy,
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds the caller must wait, or 0 when neither its address nor its (address, username) pair is blocked. */
  retryAfter(attempt: Attempt): number {
    // Nobody has failed lately (the usual case): no keys to build and look up.
    if (this.counters.size === 0) return 0;
    const now = this.clock.now().getTime();
    let wait = 0;
    for (const { key } of this.keysOf(attempt)) {
      const counter = this.counters.get(key);
      if (counter && counter.blockedUntil > now) wait = Math.max(wait, Math.ceil((counter.blockedUntil - now) / 1000));
    }
    return wait;
  }

  recordFailure(attempt: Attempt): void {
    const now = this.clock.now().getTime();
    for (const { key, limit } of this.keysOf(attempt)) {
      let counter = this.counters.get(key);
      if (!counter || now - counter.windowStart >= this.policy.windowSeconds * 1000) {
        counter = { failures: 0, windowStart: now, blockedUntil: 0 };
        this.remember(key, counter);
      }
      counter.failures += 1;
      if (counter.failures >= limit) counter.blockedUntil = now + this.policy.blockSeconds * 1000;
    }
  }

  /**
   * Clears the pair's failures. The address keeps its count: a scanner holding one valid account
   * must not be able to reset its address between guesses at other usernames.
   */
  recordSuccess(attempt: Attempt): void {
    if (this.counters.size > 0) this.counters.delete(pairKey(attempt));
  }

  private keysOf(attempt: Attempt): Array<{ key: string; limit: number }> {
    const keys = [{ key: `ip:${attempt.address}`, limit: this.policy.maxFailuresPerAddress }];
    if (attempt.username) keys.push({ key: pairKey(attempt), limit: this.policy.maxFailures });
    return keys;
  }

  private remember(key: string, counter: Counter): void {
    this.counters.delete(key);
    if (this.counters.size >= this.maxKeys) {
      // Maps iterate in insertion order: drop the oldest key so memory stays bounded under a scan.
      const oldest = this.counters.keys().next().value;
      if (oldest !== undefined) this.counters.delete(oldest);
    }
    this.counters.set(key, counter);
  }
}

const pairKey = (attempt: Attempt) => `pair:${attempt.address}\u0000${attempt.username.toLowerCase()}`;
