import { DOMAIN_STATUSES, type DomainStatus } from '../../../../src/core/domain/domain';
import {
  isExpired,
  isGone,
  isPending,
  isRenewable,
  isSyncable,
  statusesWhere,
} from '../../../../src/core/domain/domain-lifecycle';

/** docs/orders.md#domain-states-set-by-orders and docs/domain-management.md, status by status. */
const EXPECTED: Record<DomainStatus, string> = {
  Pending: 'pending',
  'Pending Registration': 'pending',
  'Pending Transfer': 'pending',
  Active: 'renewable synced',
  Expired: 'renewable synced expired',
  Grace: 'renewable synced expired',
  Redemption: 'synced expired',
  'Transferred Away': 'gone',
  Cancelled: 'gone',
  Fraud: '',
};

describe('the domain lifecycle', () => {
  it.each(DOMAIN_STATUSES.map((status) => [status]))('answers every question about %s as the docs say', (status) => {
    const answers = [
      isPending(status) && 'pending',
      isRenewable(status) && 'renewable',
      isSyncable(status) && 'synced',
      isExpired(status) && 'expired',
      isGone(status) && 'gone',
    ].filter(Boolean);
    expect(answers.join(' ')).toBe(EXPECTED[status]);
  });

  it('lists the statuses a question holds for, in the order of the table', () => {
    expect(statusesWhere('isRenewable')).toEqual(['Active', 'Expired', 'Grace']);
    expect(statusesWhere('isSyncable')).toEqual(['Active', 'Expired', 'Grace', 'Redemption']);
    expect(statusesWhere('isGone')).toEqual(['Transferred Away', 'Cancelled']);
  });

  it('never calls a domain both pending and gone, or gone and renewable', () => {
    for (const status of DOMAIN_STATUSES) {
      expect(isPending(status) && isGone(status)).toBe(false);
      expect(isGone(status) && isRenewable(status)).toBe(false);
    }
  });
});
