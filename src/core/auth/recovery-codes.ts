import { randomBytes } from 'node:crypto';
import { hashToken } from './one-time-links';

/** Recovery codes given with a second factor (operators and resellers): each works once, in place of a TOTP code. */
export const RECOVERY_CODES = 10;

/** Ten characters in two groups from an alphabet without look-alikes, like "k7pm3-xq9fd". */
export function recoveryCode(): string {
  const alphabet = 'abcdefghjkmnpqrstuvwxyz23456789';
  const bytes = randomBytes(10);
  const chars = [...bytes].map((b) => alphabet[b % alphabet.length]);
  return `${chars.slice(0, 5).join('')}-${chars.slice(5).join('')}`;
}

/** A fresh set of codes (shown once) and the hashes that are stored. */
export function newRecoveryCodes(): { codes: string[]; hashes: string[] } {
  const codes = Array.from({ length: RECOVERY_CODES }, () => recoveryCode());
  return { codes, hashes: codes.map(recoveryCodeHash) };
}

/** What is stored of a code: its SHA-256, after case, spaces and dashes are set aside as people type them. */
export const recoveryCodeHash = (code: string): string => hashToken(code.toLowerCase().replace(/[^a-z0-9]/g, ''));

/** Six digits (spaces allowed, as apps show them) are a TOTP code; anything else is tried as a recovery code. */
export function totpCodeOf(given: string): string | undefined {
  const digits = given.replace(/\s/g, '');
  return /^\d{6}$/.test(digits) ? digits : undefined;
}
