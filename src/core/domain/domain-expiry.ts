import type { Clock } from '../common/clock';
import type { UnitOfWork } from '../common/unit-of-work';
import type { JobCounts } from '../jobs/job-scheduler';
import { isoDay } from '../order/dates';

/** An Active domain with its expiry date, and the notices already published for that date. */
export interface ExpiringDomain {
  readonly domainId: string;
  readonly domain: string;
  readonly resellerId: string;
  readonly expiryDate: string;
  /** `daysLeft` of the `domain.expiring` notices published for this expiry date. */
  readonly notices: readonly number[];
}

export interface ExpiryRepository {
  /** Active domains expiring after `from` and on or before `until` (YYYY-MM-DD), soonest first. */
  expiring(from: string, until: string, limit: number): Promise<ExpiringDomain[]>;
  /** Records a notice; false when it was recorded already (by another process). Inside a transaction. */
  recordNotice(domainId: string, expiryDate: string, daysLeft: number, at: Date): Promise<boolean>;
  /**
   * Claims the reseller's digest of `day` for one attempt at sending it, until `leaseUntil`;
   * false when it was sent already or another process holds the claim. A digest whose send failed
   * (or whose claimer died) is claimed again.
   */
  claimDigest(resellerId: string, day: string, now: Date, leaseUntil: Date): Promise<boolean>;
  digestSent(resellerId: string, day: string, at: Date): Promise<void>;
  /** Released to be tried again by the next run. */
  digestFailed(resellerId: string, day: string, error: string): Promise<void>;
}

/** `domain.expiring` is published this many days before the expiry date, once each. */
export const EXPIRY_NOTICE_DAYS = [30, 7, 1] as const;
export type NoticeDays = (typeof EXPIRY_NOTICE_DAYS)[number];

const DAY_MS = 86_400_000;

export function addDays(day: string, days: number): string {
  return isoDay(new Date(Date.parse(`${day}T00:00:00Z`) + days * DAY_MS));
}

/**
 * The notice a domain is due for with `daysLeft` to go: the tightest of 30, 7 and 1 days it is
 * within (a domain first seen 5 days before its expiry gets the 7-day notice, not a late 30-day one).
 */
export function noticeFor(daysLeft: number): NoticeDays | undefined {
  if (daysLeft < 0 || daysLeft > 30) return undefined;
  return daysLeft <= 1 ? 1 : daysLeft <= 7 ? 7 : 30;
}

/**
 * Publishes `domain.expiring` 30, 7 and 1 days before each Active domain's expiry date, once
 * each per expiry date (a renewal's new date starts over). Safe on several processes at once:
 * the notice's row, written with the event, is the proof it was published.
 */
export class DomainExpiryNotices {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  async publishDue(): Promise<JobCounts> {
    const now = this.clock.now();
    const today = isoDay(now);
    const expiring = await this.uow.read.expiry.expiring(today, addDays(today, 30), 10_000);
    let published = 0;
    for (const d of expiring) {
      const daysLeft = Math.round(
        (Date.parse(`${d.expiryDate}T00:00:00Z`) - Date.parse(`${today}T00:00:00Z`)) / DAY_MS,
      );
      const notice = noticeFor(daysLeft);
      if (notice === undefined || d.notices.includes(notice)) continue;
      const recorded = await this.uow.run(async ({ expiry, outbox }) => {
        if (!(await expiry.recordNotice(d.domainId, d.expiryDate, notice, now))) return false;
        outbox.push({
          name: 'domain.expiring',
          event: {
            domainId: d.domainId,
            domain: d.domain,
            resellerId: d.resellerId,
            expiryDate: d.expiryDate,
            daysLeft: notice,
            at: now,
          },
        });
        return true;
      });
      if (recorded) published++;
    }
    return { published };
  }
}
