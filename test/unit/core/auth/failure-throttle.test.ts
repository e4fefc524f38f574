import { FailureThrottle } from '../../../../src/core/auth/failure-throttle';
import { fixedClock } from '../../../../src/core/shared/clock';

describe('FailureThrottle', () => {
  const policy = { maxFailures: 2, windowSeconds: 10, blockSeconds: 30 };

  it('blocks a key once it reaches the failure limit inside the window', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    throttle.recordFailure(['ip:1']);
    expect(throttle.retryAfter(['ip:1'])).toBe(0);
    throttle.recordFailure(['ip:1']);
    expect(throttle.retryAfter(['ip:1'])).toBe(30);
    expect(throttle.retryAfter(['ip:2'])).toBe(0);
  });

  it('forgets failures from an earlier window', () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const throttle = new FailureThrottle(policy, clock);
    throttle.recordFailure(['ip:1']);
    clock.advance(11_000);
    throttle.recordFailure(['ip:1']);
    expect(throttle.retryAfter(['ip:1'])).toBe(0);
  });

  it('clears a key on success', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    throttle.recordFailure(['user:a']);
    throttle.recordSuccess(['user:a']);
    throttle.recordFailure(['user:a']);
    expect(throttle.retryAfter(['user:a'])).toBe(0);
  });

  it('keeps memory bounded under a scan of many addresses', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'), 100);
    for (let i = 0; i < 1000; i++) throttle.recordFailure([`ip:${i}`]);
    expect((throttle as unknown as { counters: Map<string, unknown> }).counters.size).toBeLessThanOrEqual(100);
  });
});
