import type { Tld } from '../../../../src/core/catalogue/catalogue';
import { statusFromSync } from '../../../../src/core/domain/domain-sync-service';
import type { SyncView } from '../../../../src/core/registrar/registrar-gateway';

const tld: Tld = { tld: '.com', registrar: 'sandbox', minLength: 1, maxLength: 63, graceDays: 30, redemptionDays: 30 };
const view = (over: Partial<SyncView>): SyncView => ({
  active: false,
  expired: false,
  transferredAway: false,
  cancelled: false,
  expiryDate: '2027-01-01',
  fromPlatform: false,
  ...over,
});
const on = (date: string) => new Date(`${date}T12:00:00Z`);

describe('statusFromSync', () => {
  it('is Active while the registrar says active', () => {
    expect(statusFromSync('Expired', view({ active: true }), tld, on('2026-12-01'))).toBe('Active');
  });

  it.each([
    ['2027-01-15', 'Grace'],
    ['2027-01-31', 'Grace'],
    ['2027-02-15', 'Redemption'],
    ['2027-03-02', 'Redemption'],
    ['2027-03-03', 'Expired'],
  ] as const)('counts an expired domain on %s as %s by the grace and redemption days of its TLD', (today, status) => {
    expect(statusFromSync('Active', view({ expired: true }), tld, on(today))).toBe(status);
  });

  it('is Expired when the TLD or the expiry date is unknown', () => {
    expect(statusFromSync('Active', view({ expired: true }), undefined, on('2027-01-02'))).toBe('Expired');
    expect(statusFromSync('Active', view({ expired: true, expiryDate: undefined }), tld, on('2027-01-02'))).toBe(
      'Expired',
    );
  });

  it('puts transferred away and cancelled before everything else', () => {
    expect(statusFromSync('Active', view({ active: true, transferredAway: true }), tld, on('2026-12-01'))).toBe(
      'Transferred Away',
    );
    expect(statusFromSync('Active', view({ active: true, cancelled: true }), tld, on('2026-12-01'))).toBe('Cancelled');
  });

  it('keeps the status when the registrar says neither active nor expired', () => {
    expect(statusFromSync('Grace', view({}), tld, on('2026-12-01'))).toBe('Grace');
  });
});
