import { FailureThrottle } from '../../../../src/core/auth/failure-throttle';
import { fixedClock } from '../../../../src/core/common/clock';

describe('FailureThrottle', () => {
  const policy = { maxFailures: 2, maxFailuresPerAddress: 4, windowSeconds: 10, blockSeconds: 30 };
  const attacker = { address: '192.0.2.66', username: 'victim@example.com' };
  const victim = { address: '198.51.100.7', username: 'victim@example.com' };

  it('blocks an (address, username) pair once it reaches the failure limit inside the window', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    throttle.recordFailure(attacker);
    expect(throttle.retryAfter(attacker)).toBe(0);
    throttle.recordFailure(attacker);
    expect(throttle.retryAfter(attacker)).toBe(30);
  });

  it('never blocks a username from another address, however often it failed elsewhere', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    for (let i = 0; i < 50; i++) throttle.recordFailure(attacker);
    expect(throttle.retryAfter(attacker)).toBe(30);
    expect(throttle.retryAfter(victim)).toBe(0);
  });

  it('blocks an address that fails for many usernames at the per-address limit', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    for (let i = 0; i < 3; i++) throttle.recordFailure({ address: '192.0.2.66', username: `guess${i}@example.com` });
    expect(throttle.retryAfter({ address: '192.0.2.66', username: 'fresh@example.com' })).toBe(0);
    throttle.recordFailure({ address: '192.0.2.66', username: 'guess3@example.com' });
    expect(throttle.retryAfter({ address: '192.0.2.66', username: 'fresh@example.com' })).toBe(30);
    expect(throttle.retryAfter({ address: '192.0.2.67', username: 'fresh@example.com' })).toBe(0);
  });

  it('counts failures without a username against the address only', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    for (let i = 0; i < 3; i++) throttle.recordFailure({ address: '192.0.2.66', username: '' });
    expect(throttle.retryAfter({ address: '192.0.2.66', username: '' })).toBe(0);
    throttle.recordFailure({ address: '192.0.2.66', username: '' });
    expect(throttle.retryAfter({ address: '192.0.2.66', username: 'anyone@example.com' })).toBe(30);
  });

  it('forgets failures from an earlier window', () => {
    const clock = fixedClock('2026-01-01T00:00:00Z');
    const throttle = new FailureThrottle(policy, clock);
    throttle.recordFailure(attacker);
    clock.advance(11_000);
    throttle.recordFailure(attacker);
    expect(throttle.retryAfter(attacker)).toBe(0);
  });

  it("clears the pair's failures on success but not its address's", () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'));
    throttle.recordFailure({ address: '192.0.2.66', username: 'other@example.com' });
    throttle.recordFailure(attacker);
    throttle.recordFailure({ address: '192.0.2.66', username: 'third@example.com' });
    throttle.recordSuccess(attacker);
    throttle.recordFailure(attacker);
    expect(throttle.retryAfter(attacker)).toBe(30);
    expect(throttle.retryAfter({ address: '192.0.2.66', username: 'third@example.com' })).toBe(30);
  });

  it('keeps memory bounded under a scan of many addresses', () => {
    const throttle = new FailureThrottle(policy, fixedClock('2026-01-01T00:00:00Z'), 100);
    for (let i = 0; i < 1000; i++) throttle.recordFailure({ address: `192.0.2.${i}`, username: `u${i}` });
    expect((throttle as unknown as { counters: Map<string, unknown> }).counters.size).toBeLessThanOrEqual(100);
  });
});
