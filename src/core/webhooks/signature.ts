import { createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** A new endpoint secret as the Standard Webhooks specification writes it: `whsec_` and 24 random bytes in base64. */
export function newWebhookSecret(): string {
  return `${PREFIX}${randomBytes(24).toString('base64')}`;
}

/**
 * The `webhook-signature` value for one secret: `v1,` and the base64 HMAC-SHA256, keyed with the
 * secret's bytes, of `id.timestamp.body` (Standard Webhooks, "Signature scheme").
 */
export function signWebhook(secret: string, id: string, timestampSeconds: number, body: string): string {
  const key = Buffer.from(secret.startsWith(PREFIX) ? secret.slice(PREFIX.length) : secret, 'base64');
  const mac = createHmac('sha256', key).update(`${id}.${timestampSeconds}.${body}`).digest('base64');
  return `v1,${mac}`;
}

/** The three headers of one attempt; several secrets (a rotation's grace) sign side by side, space-separated. */
export function webhookHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
): Record<string, string> {
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestampSeconds),
    'webhook-signature': secrets.map((s) => signWebhook(s, id, timestampSeconds, body)).join(' '),
  };
}
