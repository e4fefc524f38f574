import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * docs/api.md#authentication: the token is base64( hex( HMAC-SHA256(message = API key,
 * secret = "<email>:<yy-mm-dd HH>" in UTC) ) ), 88 characters long.
 */
export const TOKEN_LENGTH = 88;
const TOKEN_ALPHABET = /^[A-Za-z0-9+/]{86}==$/;

/** The hour stamp of the HMAC secret: two-digit year, month, day, a space, two-digit hour, UTC. */
export function tokenHour(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getUTCFullYear() % 100)}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())} ${two(at.getUTCHours())}`;
}

export function computeToken(email: string, apiKey: string, at: Date): string {
  const hex = createHmac('sha256', `${email}:${tokenHour(at)}`)
    .update(apiKey)
    .digest('hex');
  return Buffer.from(hex, 'utf8').toString('base64');
}

export function looksLikeToken(token: string): boolean {
  return token.length === TOKEN_LENGTH && TOKEN_ALPHABET.test(token);
}

/** Constant-time comparison of two tokens of the fixed length (88 characters). */
export function tokensEqual(expected: string, given: string): boolean {
  const a = Buffer.from(expected, 'utf8');
  const b = Buffer.from(given, 'utf8');
  return a.length === b.length && timingSafeEqual(a, b);
}

/** API keys carry 192 random bits, base64url so they paste cleanly into any billing platform. */
export function generateApiKey(): string {
  return randomBytes(24).toString('base64url');
}
