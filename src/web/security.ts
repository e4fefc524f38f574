import { timingSafeEqual } from 'node:crypto';
import type Koa from 'koa';

/**
 * Headers of every page and file of an area: no inline script or style may run (htmx and our
 * stylesheet are files of our own origin), no framing, no sniffing, no referrer to other sites.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "form-action 'self'; base-uri 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'X-Frame-Options': 'DENY',
  // same-origin, not no-referrer: with no-referrer Chrome sends "Origin: null" on form posts, which the Origin check refuses.
  'Referrer-Policy': 'same-origin',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=(), payment=()',
};

const SECURITY_HEADER_ENTRIES = Object.entries(SECURITY_HEADERS);

export function setSecurityHeaders(ctx: Koa.Context): void {
  for (const [name, value] of SECURITY_HEADER_ENTRIES) ctx.set(name, value);
}

/**
 * Whether a state-changing request comes from our own pages: Sec-Fetch-Site (sent by every
 * current browser) must say same-origin; without it, an Origin header must be ours. A request
 * with neither (a script, not a browser) still needs the CSRF token.
 */
export function isSameOrigin(ctx: Koa.Context): boolean {
  const site = ctx.get('sec-fetch-site');
  if (site) return site === 'same-origin';
  const origin = ctx.get('origin');
  // Built here: Koa 3's ctx.origin answers the Origin header itself when one is sent.
  if (origin) return origin === `${ctx.protocol}://${ctx.host}`;
  return true;
}

/** Constant-time comparison of a submitted CSRF token with the expected one. */
export function tokensMatch(given: unknown, expected: string | undefined): boolean {
  if (typeof given !== 'string' || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
