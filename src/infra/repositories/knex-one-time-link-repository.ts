import type { Db } from '../db/db';
import type { LinkPurpose, OneTimeLinkRepository, StoredLink } from '../../core/auth/one-time-links';

interface LinkRow {
  token_hash: string;
  purpose: string;
  subject_id: string;
  created_at: number | string;
  expires_at: number | string;
  used_at: number | string | null;
}

export class KnexOneTimeLinkRepository implements OneTimeLinkRepository {
  constructor(private readonly db: Db) {}

  async insert(link: StoredLink): Promise<void> {
    await this.db<LinkRow>('one_time_links').insert({
      token_hash: link.tokenHash,
      purpose: link.purpose,
      subject_id: link.subjectId,
      created_at: link.createdAt.getTime(),
      expires_at: link.expiresAt.getTime(),
      used_at: null,
    });
  }

  async findUsable(tokenHash: string, purpose: LinkPurpose, now: Date): Promise<StoredLink | undefined> {
    const row = await this.db<LinkRow>('one_time_links')
      .where({ token_hash: tokenHash, purpose })
      .whereNull('used_at')
      .andWhere('expires_at', '>', now.getTime())
      .first();
    return row
      ? {
          tokenHash: row.token_hash,
          purpose: row.purpose as LinkPurpose,
          subjectId: row.subject_id,
          createdAt: new Date(Number(row.created_at)),
          expiresAt: new Date(Number(row.expires_at)),
        }
      : undefined;
  }

  async markUsed(tokenHash: string, purpose: LinkPurpose, now: Date): Promise<boolean> {
    const updated = await this.db<LinkRow>('one_time_links')
      .where({ token_hash: tokenHash, purpose })
      .whereNull('used_at')
      .andWhere('expires_at', '>', now.getTime())
      .update({ used_at: now.getTime() });
    return updated === 1;
  }

  async revokeAll(purpose: LinkPurpose, subjectId: string, now: Date): Promise<void> {
    await this.db<LinkRow>('one_time_links')
      .where({ purpose, subject_id: subjectId })
      .whereNull('used_at')
      .update({ used_at: now.getTime() });
  }
}
