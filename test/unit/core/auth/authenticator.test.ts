import { computeToken } from '../../../../src/core/auth/api-token';
import { Authenticator, INVALID_TOKEN, type Credentials } from '../../../../src/core/auth/authenticator';
import { FailureThrottle } from '../../../../src/core/auth/failure-throttle';
import type { ResellerCredentials, ResellerRepository, SecretBox } from '../../../../src/core/reseller/reseller';
import { StoredResellerDirectory } from '../../../../src/core/reseller/reseller-directory';
import { fixedClock } from '../../../../src/core/common/clock';

const plainBox: SecretBox = {
  seal: (p) => `sealed:${p}`,
  open: (s) => s.replace(/^sealed:/, ''),
  mac: (purpose, message) => `mac:${purpose}:${message}`,
};
const EMAIL = 'reseller@example.com';
const KEY = 'the-api-key';

function setup(at: string, status: 'active' | 'suspended' = 'active', allowedNetworks: string[] = []) {
  const clock = fixedClock(at);
  const row: ResellerCredentials = {
    id: 'r1',
    email: EMAIL,
    groupId: 'g1',
    status,
    createdAt: new Date(0),
    sealedApiKey: plainBox.seal(KEY),
    allowedNetworks,
  };
  const repo = {
    findByEmail: async (email: string) => (email === EMAIL ? row : undefined),
  } as unknown as ResellerRepository;
  const throttle = new FailureThrottle(
    { maxFailures: 3, maxFailuresPerAddress: 15, windowSeconds: 60, blockSeconds: 60 },
    clock,
  );
  const auth = new Authenticator(new StoredResellerDirectory(repo, plainBox), throttle, clock);
  const creds = (token: string, extra: Partial<Credentials> = {}): Credentials => ({
    username: EMAIL,
    token,
    timestamp: undefined,
    clientAddress: '192.0.2.1',
    ...extra,
  });
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
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:59:50Z'), { timestamp: ts }))).resolves.toMatchObject(
        { id: 'r1' },
      );
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T11:00:30Z'), { timestamp: ts }))).rejects.toThrow(
        INVALID_TOKEN,
      );
    });

    it('refuses a timestamp more than 60 seconds away', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
      const ts = String(Date.parse('2026-11-21T10:31:01Z') / 1000);
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z'), { timestamp: ts }))).rejects.toThrow(
        /60 seconds/,
      );
    });

    it('refuses a timestamp that is not a number', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
      await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z'), { timestamp: 'now' }))).rejects.toThrow(
        /timestamp/,
      );
    });
  });

  it('answers an unknown user exactly like a bad token', async () => {
    const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z');
    const unknown = auth.authenticate({ ...creds(tokenAt('2026-11-21T10:30:00Z')), username: 'other@example.com' });
    await expect(unknown).rejects.toMatchObject({ code: 'authentication_failed', message: INVALID_TOKEN });
    await expect(auth.authenticate(creds('x'.repeat(88)))).rejects.toMatchObject({
      code: 'authentication_failed',
      message: INVALID_TOKEN,
    });
  });

  it('matches the username case-insensitively but signs with the name as sent', async () => {
    const { auth, tokenAt } = setup('2026-11-21T10:30:00Z');
    const upper = EMAIL.toUpperCase();
    const token = computeToken(upper, KEY, new Date('2026-11-21T10:30:00Z'));
    await expect(
      auth.authenticate({ username: upper, token, timestamp: undefined, clientAddress: 'x' }),
    ).resolves.toMatchObject({ id: 'r1' });
    expect(tokenAt('2026-11-21T10:30:00Z')).not.toBe(token);
  });

  it('refuses a suspended reseller after checking its token', async () => {
    const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z', 'suspended');
    await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z')))).rejects.toThrow(/suspended/);
  });

  it('blocks a client after repeated failures and tells it how long to wait', async () => {
    const { auth, creds, tokenAt, clock } = setup('2026-11-21T10:30:00Z');
    for (let i = 0; i < 3; i++) await expect(auth.authenticate(creds('bad'))).rejects.toThrow(INVALID_TOKEN);
    await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:30:00Z')))).rejects.toMatchObject({
      code: 'too_many_attempts',
      details: { retryAfterSeconds: 60 },
    });
    clock.advance(61_000);
    await expect(auth.authenticate(creds(tokenAt('2026-11-21T10:31:01Z')))).resolves.toMatchObject({ id: 'r1' });
  });

  describe('with an IP allow-list', () => {
    it('lets a client in from an allowed range, IPv4 or IPv6, and an IPv4 client seen as IPv4-mapped IPv6', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z', 'active', ['192.0.2.0/24', '2001:db8::/32']);
      const token = tokenAt('2026-11-21T10:30:00Z');
      await expect(auth.authenticate(creds(token, { clientAddress: '192.0.2.77' }))).resolves.toMatchObject({
        id: 'r1',
      });
      await expect(auth.authenticate(creds(token, { clientAddress: '::ffff:192.0.2.77' }))).resolves.toMatchObject({
        id: 'r1',
      });
      await expect(auth.authenticate(creds(token, { clientAddress: '2001:db8:1::5' }))).resolves.toMatchObject({
        id: 'r1',
      });
    });

    it('refuses any other address with 403 naming it, after the token, and without counting a failed authentication', async () => {
      const { auth, creds, tokenAt } = setup('2026-11-21T10:30:00Z', 'active', ['192.0.2.0/24']);
      const token = tokenAt('2026-11-21T10:30:00Z');
      for (let i = 0; i < 5; i++) {
        await expect(auth.authenticate(creds(token, { clientAddress: '198.51.100.9' }))).rejects.toMatchObject({
          code: 'forbidden',
          message: expect.stringContaining('198.51.100.9'),
          details: { resellerId: 'r1' },
        });
      }
      // Five refusals did not block the client: they were not authentication failures.
      await expect(auth.authenticate(creds(token, { clientAddress: '192.0.2.1' }))).resolves.toMatchObject({
        id: 'r1',
      });
    });

    it('tells a stranger nothing: a bad token from a refused address is still the one 401', async () => {
      const { auth, creds } = setup('2026-11-21T10:30:00Z', 'active', ['192.0.2.0/24']);
      await expect(auth.authenticate(creds('x'.repeat(88), { clientAddress: '198.51.100.9' }))).rejects.toMatchObject({
        code: 'authentication_failed',
        message: INVALID_TOKEN,
      });
    });
  });
});
