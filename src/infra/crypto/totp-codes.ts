import { Secret, TOTP } from 'otpauth';
import type { TotpCodes } from '../../core/operator/operator';

/** RFC 6238 codes: SHA-1, 6 digits, 30 seconds (what every authenticator app reads), one step of drift allowed. */
export function totpCodes(issuer: string, now: () => Date): TotpCodes {
  const totp = (secret: string, label = '') =>
    new TOTP({ issuer, label, algorithm: 'SHA1', digits: 6, period: 30, secret: Secret.fromBase32(secret) });
  return {
    newSecret: () => new Secret({ size: 20 }).base32,
    uri: (secret, account) => totp(secret, account).toString(),
    stepOf: (secret, code) => {
      if (!/^\d{6}$/.test(code)) return null;
      const timestamp = now().getTime();
      const delta = totp(secret).validate({ token: code, timestamp, window: 1 });
      return delta === null ? null : Math.floor(timestamp / 30_000) + delta;
    },
  };
}
