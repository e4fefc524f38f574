import type { ExpiringDomain, ExpiryRepository } from '../../../core/domain/domain-expiry';
import { byText, key, type TablesRef } from './memory-tables';

/** The twin of KnexExpiryRepository: Active domains by expiry, `domain_expiry_notices` and `expiry_digests`. */
export class MemoryExpiryRepository implements ExpiryRepository {
  constructor(private readonly ref: TablesRef) {}

  private get t() {
    return this.ref.tables;
  }

  async expiring(from: string, until: string, limit: number): Promise<ExpiringDomain[]> {
    return [...this.t.domains.values()]
      .filter((d) => d.status === 'Active' && d.expiryDate !== null && d.expiryDate > from && d.expiryDate <= until)
      .sort((a, b) => byText(a.expiryDate!, b.expiryDate!))
      .slice(0, limit)
      .map((d) => ({
        domainId: d.id,
        domain: d.name,
        resellerId: d.resellerId,
        expiryDate: d.expiryDate!,
        notices: [1, 7, 30].filter((days) => this.t.expiryNotices.has(key(d.id, d.expiryDate!, days))),
      }));
  }

  async recordNotice(domainId: string, expiryDate: string, daysLeft: number, at: Date): Promise<boolean> {
    const k = key(domainId, expiryDate, daysLeft);
    if (this.t.expiryNotices.has(k)) return false;
    this.t.expiryNotices.set(k, at.getTime());
    return true;
  }

  async claimDigest(resellerId: string, day: string, now: Date, leaseUntil: Date): Promise<boolean> {
    const k = key(resellerId, day);
    const row = this.t.expiryDigests.get(k);
    if (!row) {
      this.t.expiryDigests.set(k, {
        status: 'sending',
        attempts: 1,
        claimUntil: leaseUntil.getTime(),
        sentAt: null,
        lastError: null,
      });
      return true;
    }
    const free =
      row.status === 'failed' ||
      (row.status === 'sending' && row.claimUntil !== null && row.claimUntil < now.getTime());
    if (!free) return false;
    this.t.expiryDigests.set(k, {
      ...row,
      status: 'sending',
      attempts: row.attempts + 1,
      claimUntil: leaseUntil.getTime(),
    });
    return true;
  }

  async digestSent(resellerId: string, day: string, at: Date): Promise<void> {
    const row = this.t.expiryDigests.get(key(resellerId, day));
    if (row)
      this.t.expiryDigests.set(key(resellerId, day), {
        ...row,
        status: 'sent',
        sentAt: at.getTime(),
        claimUntil: null,
        lastError: null,
      });
  }

  async digestFailed(resellerId: string, day: string, error: string): Promise<void> {
    const row = this.t.expiryDigests.get(key(resellerId, day));
    if (row?.status === 'sending')
      this.t.expiryDigests.set(key(resellerId, day), {
        ...row,
        status: 'failed',
        claimUntil: null,
        lastError: error.slice(0, 500),
      });
  }
}
