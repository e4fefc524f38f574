import type { ExpiringDomain, ExpiryRepository } from '../../core/domain/domain-expiry';
import type { Db } from '../db/db';
import { insertUnlessPresent } from './insert-unless-present';

export class KnexExpiryRepository implements ExpiryRepository {
  constructor(private readonly db: Db) {}

  async expiring(from: string, until: string, limit: number): Promise<ExpiringDomain[]> {
    const rows: Array<{ id: string; name: string; reseller_id: string; expiry_date: string }> = await this.db('domains')
      .where({ status: 'Active' })
      .where('expiry_date', '>', from)
      .where('expiry_date', '<=', until)
      .orderBy('expiry_date')
      .limit(limit)
      .select('id', 'name', 'reseller_id', 'expiry_date');
    const notices = new Map<string, number[]>();
    for (let i = 0; i < rows.length; i += 500) {
      const chunk = rows.slice(i, i + 500);
      const found: Array<{ domain_id: string; expiry_date: string; days_left: number }> = await this.db(
        'domain_expiry_notices',
      )
        .whereIn(
          'domain_id',
          chunk.map((r) => r.id),
        )
        .select('domain_id', 'expiry_date', 'days_left');
      for (const n of found) {
        const key = `${n.domain_id} ${n.expiry_date}`;
        notices.set(key, [...(notices.get(key) ?? []), Number(n.days_left)]);
      }
    }
    return rows.map((r) => ({
      domainId: r.id,
      domain: r.name,
      resellerId: r.reseller_id,
      expiryDate: r.expiry_date,
      notices: notices.get(`${r.id} ${r.expiry_date}`) ?? [],
    }));
  }

  async recordNotice(domainId: string, expiryDate: string, daysLeft: number, at: Date): Promise<boolean> {
    return this.insertOnce('domain_expiry_notices', {
      domain_id: domainId,
      expiry_date: expiryDate,
      days_left: daysLeft,
      created_at: at.getTime(),
    });
  }

  async claimDigest(resellerId: string, day: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const first = await this.insertOnce('expiry_digests', {
      reseller_id: resellerId,
      day,
      created_at: now.getTime(),
      status: 'sending',
      attempts: 1,
      claim_until: leaseUntil.getTime(),
    });
    if (first) return true;
    const claimed = await this.db('expiry_digests')
      .where({ reseller_id: resellerId, day })
      .where((q) =>
        q
          .where({ status: 'failed' })
          .orWhere((sending) => sending.where({ status: 'sending' }).where('claim_until', '<', now.getTime())),
      )
      .update({ status: 'sending', attempts: this.db.raw('attempts + 1'), claim_until: leaseUntil.getTime() });
    return claimed > 0;
  }

  async digestSent(resellerId: string, day: string, at: Date): Promise<void> {
    await this.db('expiry_digests')
      .where({ reseller_id: resellerId, day })
      .update({ status: 'sent', sent_at: at.getTime(), claim_until: null, last_error: null });
  }

  async digestFailed(resellerId: string, day: string, error: string): Promise<void> {
    await this.db('expiry_digests')
      .where({ reseller_id: resellerId, day, status: 'sending' })
      .update({ status: 'failed', claim_until: null, last_error: error.slice(0, 500) });
  }

  /** One insert; a row already there (another process was first) answers false. */
  private async insertOnce(table: string, row: Record<string, unknown>): Promise<boolean> {
    return insertUnlessPresent(this.db(table).insert(row));
  }
}
