import { computeToken, looksLikeToken, tokenHour, tokensEqual } from '../../../../src/core/auth/api-token';

describe('the token of docs/api.md#authentication', () => {
  it('matches the known-answer vector computed independently with openssl', () => {
    // printf %s "test-api-key-0123456789" | openssl dgst -sha256 -hmac "reseller@example.com:26-03-05 14" | sed 's/^.*= //' | tr -d '\n' | base64
    const token = computeToken('reseller@example.com', 'test-api-key-0123456789', new Date('2026-03-05T14:30:00Z'));
    expect(token).toBe('N2YwMDMxNTVkOTY4N2VhN2E5ZTRmYTNkYmQ5MTEwMmM4NWY2ZDI0YWE5YzQzMmYyMzk1NjFhYzhjNGU0YTY1OQ==');
    expect(token).toHaveLength(88);
  });

  it('changes with the UTC hour', () => {
    const previousHour = computeToken(
      'reseller@example.com',
      'test-api-key-0123456789',
      new Date('2026-03-05T13:59:59Z'),
    );
    expect(previousHour).toBe(
      'ZjEwYTMzMjE3MDYwMzNkZTllNTdjMTM3YWRiODIwYTYyNjY2NGUxZWQwNmUwYjQ2MjJlOWI0ODI5ZTkyZTllZA==',
    );
  });

  it('formats the hour stamp as yy-mm-dd HH in UTC', () => {
    expect(tokenHour(new Date('2009-01-02T03:04:05Z'))).toBe('09-01-02 03');
    expect(tokenHour(new Date('2026-12-31T23:59:59-05:00'))).toBe('27-01-01 04');
  });

  it('recognises only 88-character base64 tokens', () => {
    expect(looksLikeToken(computeToken('a@b.c', 'k', new Date()))).toBe(true);
    expect(looksLikeToken('a'.repeat(88))).toBe(false);
    expect(looksLikeToken('')).toBe(false);
  });

  it('compares tokens of different lengths as unequal without throwing', () => {
    expect(tokensEqual('abc', 'abcd')).toBe(false);
    expect(tokensEqual('abc', 'abc')).toBe(true);
    expect(tokensEqual('é', 'e')).toBe(false);
  });
});
