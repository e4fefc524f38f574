import { computeToken } from '../../../../src/core/auth/api-token';
import { Authenticator, INVALID_TOKEN, type Credentials } from '../../../../src/core/auth/authenticator';
import { FailureThrottle } from '../../../../src/core/auth/failure-throttle';
import type { ResellerCredentials, ResellerRepository, SecretBox } from '../../../../src/core/reseller/reseller';
import { fixedClock } from '../../../../src/core/shared/clock';

const plainBox: SecretBox = { seal: (p) => `sealed:${p}`, open: (s) => s.replace(/^sealed:/, '') };
const EMAIL = 'reseller@example.com';
const KEY = 'the-api-key';

function setup(at: string, status: 'active' | 'suspended' = 'active') {
  const clock = fixedClock(at);
  const row: ResellerCredentials = { id: 'r1', email: EMAIL, groupId: 'g1', status, createdAt: new Date(0), sealedApiKey: plainBox.seal(KEY) };
  const repo = { findByEmail: async (email: string) => (email === EMAIL ? row : undefined) } as unknown as ResellerRepository;
  const throttle = new FailureThrottle({ maxFailures: 3, windowSeconds: 60, blockSeconds: 60 }, clock);
  const auth = new Authenticator(repo, plainBox, throttle, clock);
  const creds = (token: string, extra: Partial<Credentials> = {}): Credentials => ({ username: EMAIL, token, timestamp: undefined, clientAddress: '192.0.2.1', ...extra });
  return { clock, auth, creds, tokenAt: (iso: string) => computeToken(EMAIL, KEY, new Date(iso)) };
}

describe('Authenticator', () => {
  describe('without a timestamp header', () => {
    it('accepts a token of the current UTC hour', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:00:00Z')))).resolves.toMatchObject({ id: 'r1' });
    });

    it('accepts the previous hour within 60 seconds after the boundary', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T11:00:59Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:59:00Z')))).resolves.toMatchObject({ id: 'r1' });
    });

    it('refuses the previous hour more than 60 seconds after the boundary', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T11:01:01Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:59:00Z')))).rejects.toThrow(INVALID_TOKEN);
    });

    it('accepts the next hour within 60 seconds before the boundary', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:59:01Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T11:00:00Z')))).resolves.toMatchObject({ id: 'r1' });
    });

    it('refuses the next hour earlier than that', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:58:59Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T11:00:00Z')))).rejects.toThrow(INVALID_TOKEN);
    });
  });

  describe('with a timestamp header', () => {
    it('checks the token against the hour of the timestamp', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T11:00:30Z');
      const ts = String(Date.parse('2026-11-21T10:59:50Z') / 1000);
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:59:50Z'), { timestamp: ts }))).resolves.toMatchObject({ id: 'r1' });
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T11:00:30Z'), { timestamp: ts }))).rejects.toThrow(INVALID_TOKEN);
    });

    it('refuses a timestamp more than 60 seconds away', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
      const ts = String(Date.parse('2026-11-21T10:31:01Z') / 1000);
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z'), { timestamp: ts }))).rejects.toThrow(/60 seconds/);
    });

    it('refuses a timestamp that is not a number', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z'), { timestamp: 'now' }))).rejects.toThrow(/timestamp/);
    });
  });

  it('answers an unknown user exactly like a bad token', async () => {
    const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
    const unknown = auth.authenticate({ ...creds(tokenAt('2026-11-21T10:30:00Z')), username: 'other@example.com' });
    await expect(unknown).rejects.toMatchObject({ code: 'authentication_failed', message: INVALID_TOKEN });
    await expect(auth.authenticate(creds('x'.repeat(88)))).rejects.toMatchObject({ code: 'authentication_failed', message: INVALID_TOKEN });
  });

  it('matches the username case-insensitively but signs with the name as sent', async () => {
    const { auth, tokenAt } = setup('2026-11-21T10:30:00Z');
    const upper = EMAIL.toUpperCase();
    const token = computeToken(upper, KEY, new Date('2026-11-21T10:30:00Z'));
    await expect(auth.authenticate({ username: upper, token, timestamp: undefined, clientAddress: 'x' })).resolves.toMatchObject({ id: 'r1' });
    expect(tokenAt('2026-11-21T10:30:00Z')).not.toBe(token);
  });

  it('refuses a suspended reseller after checking its token', async () => {
    const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z', 'suspended');
    await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z')))).rejects.toThrow(/suspended/);
  });

  it('blocks a client after repeated failures and tells it how long to wait', async () => {
    const { auth, creds, tokenAt, clock } = setup('2026-11-21T10:30:00Z');
    for (let i = 0; i < 3; i++) await expect(auth.authenticate(creds('bad'))).rejects.toThrow(INVALID_TOKEN);
    await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z')))).rejects.toMatchObject({ code: 'too_many_attempts', details: { retryAfterSeconds: 60 } });
    clock.advance(61_000);
    await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:31:01Z')))).resolves.toMatchObject({ id: 'r1' });
  });

  describe('remembering a reseller that just authenticated (credentialsTtlMs)', () => {
    function remembering(ttlMs = 1000) {
      const clock = fixedClock('2026-11-21T10:30:00Z');
      let row: ResellerCredentials = { id: 'r1', email: EMAIL, groupId: 'g1', status: 'active', createdAt: new Date(0), sealedApiKey: plainBox.seal(KEY) };
      const lookups: string[] = [];
      const repo = { findByEmail: async (email: string) => { lookups.push(email); return email === EMAIL ? row : undefined; } } as unknown as ResellerRepository;
      const throttle = new FailureThrottle({ maxFailures: 100, windowSeconds: 60, blockSeconds: 60 }, clock);
      const auth = new Authenticator(repo, plainBox, throttle, clock, { credentialsTtlMs: ttlMs });
      const creds = (key: string, username = EMAIL): Credentials => ({ username, token: computeToken(username, key, clock.now()), timestamp: undefined, clientAddress: '192.0.2.1' });
      return { clock, auth, creds, lookups, update: (change: Partial<ResellerCredentials>) => { row = { ...row, ...change }; } };
    }

    it('skips the database lookup for the same reseller within the time', async () => {
      const { auth, creds, lookups, clock } = remembering();
      await auth.authenticate(creds(KEY));
      clock.advance(999);
      await expect(auth.authenticate(creds(KEY))).resolves.toMatchObject({ id: 'r1' });
      expect(lookups).toEqual([EMAIL]);
      clock.advance(1);
      await auth.authenticate(creds(KEY));
      expect(lookups).toEqual([EMAIL, EMAIL]);
    });

    it('accepts a new key at once: a token that does not match the remembered key is checked against the database', async () => {
      const { auth, creds, update } = remembering();
      await auth.authenticate(creds(KEY));
      update({ sealedApiKey: plainBox.seal('the-new-key') });
      await expect(auth.authenticate(creds('the-new-key'))).resolves.toMatchObject({ id: 'r1' });
      await expect(auth.authenticate(creds(KEY))).rejects.toThrow(INVALID_TOKEN);
    });

    it('forgets a reseller whose key or status changed in this process, so a suspension applies to the next request', async () => {
      const { auth, creds, update } = remembering();
      await auth.authenticate(creds(KEY));
      update({ status: 'suspended' });
      auth.credentialsChanged(EMAIL.toUpperCase());
      await expect(auth.authenticate(creds(KEY))).rejects.toThrow(/suspended/);
    });

    it('remembers neither failures nor unknown users', async () => {
      const { auth, creds, lookups } = remembering();
      await expect(auth.authenticate(creds('wrong'))).rejects.toThrow(INVALID_TOKEN);
      await expect(auth.authenticate(creds('wrong'))).rejects.toThrow(INVALID_TOKEN);
      await expect(auth.authenticate(creds(KEY, 'nobody@example.com'))).rejects.toThrow(INVALID_TOKEN);
      await expect(auth.authenticate(creds(KEY, 'nobody@example.com'))).rejects.toThrow(INVALID_TOKEN);
      expect(lookups).toEqual([EMAIL, EMAIL, 'nobody@example.com', 'nobody@example.com']);
    });

    it('checks the token of each request against the remembered key, hour by hour', async () => {
      const { auth, creds, clock } = remembering(60 * 60_000);
      const first = creds(KEY);
      await auth.authenticate(first);
      clock.advance(31 * 60_000); // 11:01:00, past the 60 s grace of the previous hour
      await expect(auth.authenticate(first)).rejects.toThrow(INVALID_TOKEN);
      await expect(auth.authenticate(creds(KEY))).resolves.toMatchObject({ id: 'r1' });
    });

    it('reads the database on every request with a time of 0', async () => {
      const { auth, creds, lookups } = remembering(0);
      await auth.authenticate(creds(KEY));
      await auth.authenticate(creds(KEY));
      expect(lookups).toHaveLength(2);
    });
  });
});
