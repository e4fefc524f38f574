import type { Clock } from '../shared/clock';

export interface ThrottlePolicy {
  /** Failed attempts allowed per key inside one window before the key is blocked. */
  readonly maxFailures: number;
  readonly windowSeconds: number;
  readonly blockSeconds: number;
}

interface Counter {
  failures: number;
  windowStart: number;
  blockedUntil: number;
}

/**
 * Counts failed authentications per key (client address, username) and blocks a key for a
 * while once it fails too often. In memory, per process: with several processes an attacker
 * gets at most `maxFailures` tries per window on each, which still makes guessing a 192-bit key
 * hopeless; the throttle exists to stop noisy scanners and log floods.
 */
export class FailureThrottle {
  private readonly counters = new Map<string, Counter>();

  constructor(
    private readonly policy: ThrottlePolicy,
    private readonly clock: Clock,
    private readonly maxKeys = 100_000,
  ) {}

  /** Seconds the caller must wait, or 0 when none of the keys is blocked. */
  retryAfter(keys: readonly string[]): number {
    const now = this.clock.now().getTime();
    let wait = 0;
    for (const key of keys) {
      const counter = this.counters.get(key);
      if (counter && counter.blockedUntil > now) wait = Math.max(wait, Math.ceil((counter.blockedUntil - now) / 1000));
    }
    return wait;
  }

  recordFailure(keys: readonly string[]): void {
    const now = this.clock.now().getTime();
    for (const key of keys) {
      let counter = this.counters.get(key);
      if (!counter || now - counter.windowStart >= this.policy.windowSeconds * 1000) {
        counter = { failures: 0, windowStart: now, blockedUntil: 0 };
        this.remember(key, counter);
      }
      counter.failures += 1;
      if (counter.failures >= this.policy.maxFailures) counter.blockedUntil = now + this.policy.blockSeconds * 1000;
    }
  }

  recordSuccess(keys: readonly string[]): void {
    for (const key of keys) this.counters.delete(key);
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
