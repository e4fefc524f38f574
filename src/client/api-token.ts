import { createHmac } from 'node:crypto';

/**
 * The hour stamp of the token secret (docs/api.md#authentication): two-digit year, month, day, a space and
 * the two-digit hour, in UTC. Kept here rather than imported from the core, so the SDK stands alone.
 */
export function apiTokenHour(at: Date): string {
  const two = (n: number) => String(n).padStart(2, '0');
  return `${two(at.getUTCFullYear() % 100)}-${two(at.getUTCMonth() + 1)}-${two(at.getUTCDate())} ${two(at.getUTCHours())}`;
}

/**
 * The `token` header of docs/api.md#authentication: base64 of the lowercase hex HMAC-SHA256 of the API key,
 * keyed with `"<email>:<yy-mm-dd HH>"` for the UTC hour of `at`. Always 88 characters.
 */
export function apiToken(email: string, apiKey: string, at: Date): string {
  const hex = createHmac('sha256', `${email}:${apiTokenHour(at)}`)
    .update(apiKey)
    .digest('hex');
  return Buffer.from(hex, 'utf8').toString('base64');
}
