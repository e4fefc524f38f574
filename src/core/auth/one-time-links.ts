import { createHash, randomBytes } from 'node:crypto';
import type { Clock } from '../common/clock';

/** What a one-time link is for: an operator's first (or reset) password, a reseller's portal invitation. */
export type LinkPurpose = 'set_operator_password' | 'reseller_invitation';

export interface StoredLink {
  readonly tokenHash: string;
  readonly purpose: LinkPurpose;
  readonly subjectId: string;
  readonly createdAt: Date;
  readonly expiresAt: Date;
}

/** Port: the one-time links (only the SHA-256 of each token is stored). */
export interface OneTimeLinkRepository {
  insert(link: StoredLink): Promise<void>;
  /** The link when it is unused and not expired at `now`. */
  findUsable(tokenHash: string, purpose: LinkPurpose, now: Date): Promise<StoredLink | undefined>;
  /** Marks it used if it still was usable; true for the one caller that did. */
  markUsed(tokenHash: string, purpose: LinkPurpose, now: Date): Promise<boolean>;
  /** Marks every unused link of the subject for this purpose used (a new link replaces the old ones). */
  revokeAll(purpose: LinkPurpose, subjectId: string, now: Date): Promise<void>;
}

export const hashToken = (token: string): string => createHash('sha256').update(token).digest('hex');

/**
 * Links that work once, for a while: the token is 256 random bits, shown once, stored hashed. Used
 * for an operator's set-password link (`reseller-admin operator create`) and the portal's invitations.
 */
export class OneTimeLinks {
  constructor(
    private readonly repository: OneTimeLinkRepository,
    private readonly clock: Clock,
  ) {}

  /** A new token for the subject; earlier unused links of the same purpose stop working. */
  async issue(purpose: LinkPurpose, subjectId: string, validHours = 24): Promise<{ token: string; expiresAt: Date }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.clock.now();
    const expiresAt = new Date(now.getTime() + validHours * 3_600_000);
    await this.repository.revokeAll(purpose, subjectId, now);
    await this.repository.insert({ tokenHash: hashToken(token), purpose, subjectId, createdAt: now, expiresAt });
    return { token, expiresAt };
  }

  /** The subject of a usable link, without using it (to show the form). */
  async peek(purpose: LinkPurpose, token: string): Promise<string | undefined> {
    if (!isTokenShaped(token)) return undefined;
    return (await this.repository.findUsable(hashToken(token), purpose, this.clock.now()))?.subjectId;
  }

  /** Uses the link: its subject, or undefined when it is unknown, expired or already used (also by a racing request). */
  async use(purpose: LinkPurpose, token: string): Promise<string | undefined> {
    if (!isTokenShaped(token)) return undefined;
    const now = this.clock.now();
    const link = await this.repository.findUsable(hashToken(token), purpose, now);
    if (!link) return undefined;
    return (await this.repository.markUsed(link.tokenHash, purpose, now)) ? link.subjectId : undefined;
  }
}

const isTokenShaped = (token: unknown): token is string => typeof token === 'string' && /^[\w-]{20,100}$/.test(token);
