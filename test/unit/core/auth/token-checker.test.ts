import { createHmac } from 'node:crypto';
import { computeToken } from '../../../../src/core/auth/api-token';
import { checkToken, type TokenCheckInput } from '../../../../src/core/auth/token-checker';

const EMAIL = 'shop@example.com';
const KEY = 'current-key-0123456789abcdefghij';
const NOW = new Date('2026-11-21T14:30:00Z');

const check = (token: string, extra: Partial<TokenCheckInput> = {}) =>
  checkToken({ token, username: EMAIL, email: EMAIL, apiKey: KEY, now: NOW, ...extra });

/** Every answer, whatever the paste: the key and the token the server expects never appear in it. */
function expectNoSecret(result: ReturnType<typeof checkToken>): void {
  const text = JSON.stringify(result);
  expect(text).not.toContain(KEY);
  for (const hours of [-1, 0, 1]) {
    const expected = computeToken(EMAIL, KEY, new Date(NOW.getTime() + hours * 3_600_000));
    expect(text).not.toContain(expected);
  }
}

describe('the token checker', () => {
  it('says a token built for the current UTC hour with the current key is valid now', () => {
    const result = check(computeToken(EMAIL, KEY, NOW));
    expect(result).toMatchObject({
      valid: true,
      problem: 'valid',
      serverHour: '26-11-21 14',
      tokenHour: '26-11-21 14',
    });
    expectNoSecret(result);
  });

  it('accepts the neighbouring hour within 60 seconds of a boundary, as the server does', () => {
    const early = new Date('2026-11-21T15:00:30Z');
    expect(check(computeToken(EMAIL, KEY, NOW), { now: early }).valid).toBe(true);
    expect(check(computeToken(EMAIL, KEY, NOW), { now: new Date('2026-11-21T15:02:00Z') }).valid).toBe(false);
  });

  it('ignores spaces around the token, as the server does', () => {
    expect(check(`  ${computeToken(EMAIL, KEY, NOW)}\n`).valid).toBe(true);
  });

  it('names another hour and how far off it is (a clock in local time)', () => {
    const twoHoursAhead = computeToken(EMAIL, KEY, new Date('2026-11-21T16:10:00Z'));
    const result = check(twoHoursAhead);
    expect(result).toMatchObject({ valid: false, problem: 'another_hour', tokenHour: '26-11-21 16' });
    expect(result.message).toContain('2 hour(s) ahead of');
    expect(check(computeToken(EMAIL, KEY, new Date('2026-11-20T14:30:00Z'))).message).toContain('24 hour(s) behind');
    expectNoSecret(result);
  });

  it('says a token made with another key (a rotated one) is not made with the current key, without naming either', () => {
    const result = check(computeToken(EMAIL, 'old-key-rotated-away-000000000000', NOW));
    expect(result).toMatchObject({ valid: false, problem: 'not_current_key' });
    expect(result.message).not.toContain('old-key');
    expectNoSecret(result);
  });

  it('recognises spaces and line breaks inside the token', () => {
    const token = computeToken(EMAIL, KEY, NOW);
    expect(check(`${token.slice(0, 40)}\n${token.slice(40)}`).problem).toBe('spaces');
    expect(check(`${token.slice(0, 10)} ${token.slice(10)}`).problem).toBe('spaces');
  });

  it('recognises the usual mistakes in building the token', () => {
    const secret = `${EMAIL}:26-11-21 14`;
    const hex = createHmac('sha256', secret).update(KEY).digest('hex');
    expect(check(hex).problem).toBe('hex_digest');
    expect(check(createHmac('sha256', secret).update(KEY).digest('base64')).problem).toBe('raw_digest');
    const swapped = Buffer.from(createHmac('sha256', KEY).update(secret).digest('hex')).toString('base64');
    expect(check(swapped).problem).toBe('swapped');
    for (const token of [hex, swapped]) expectNoSecret(check(token));
  });

  it('recognises a token built from the email in another case than the username header sends', () => {
    // The billing module sends the email as the operator typed it; the token was built from the stored one.
    const result = check(computeToken('shop@example.com', KEY, NOW), { username: 'Shop@Example.com' });
    expect(result.problem).toBe('username_case');
    // The server builds from the header as sent: the same mixed case in both is valid.
    expect(check(computeToken('Shop@Example.com', KEY, NOW), { username: 'Shop@Example.com' }).valid).toBe(true);
  });

  it('tells an empty or truncated paste, and a timestamp header too far from server time', () => {
    expect(check('   ').problem).toBe('empty');
    const cut = check(computeToken(EMAIL, KEY, NOW).slice(0, 60));
    expect(cut.problem).toBe('not_a_token');
    expect(cut.message).toContain('60 characters');
    const stale = check(computeToken(EMAIL, KEY, NOW), { timestamp: String(NOW.getTime() / 1000 - 120) });
    expect(stale).toMatchObject({ valid: false, problem: 'timestamp' });
    // With a timestamp, the token is checked against that second's hour.
    const withStamp = check(computeToken(EMAIL, KEY, NOW), { timestamp: String(NOW.getTime() / 1000 + 30) });
    expect(withStamp.valid).toBe(true);
  });
});
