import {
  isLocked,
  isTransferredAwayBy,
  roleIds,
  statusOf,
  SYNC_OF_ABSENT,
  syncOfInfo,
  syncOfUnshown,
  transferSyncOfSponsor,
  transferSyncOfTransfer,
} from '../../../plugins/epp/src/decisions';
import type { DomainInfo, TransferData } from '../../../plugins/epp/src/domain-info';

/** What the registry's info and transfer answers mean for the platform, without a registry (plugins/epp/src/decisions.ts). */
const US = 'reseller-clid';
const TODAY = '2026-11-26';

const info = (over: Partial<DomainInfo> = {}): DomainInfo => ({
  name: 'example.test',
  roid: 'D1-TEST',
  statuses: ['ok'],
  contacts: [],
  hostObjects: [],
  hostAttributes: [],
  subordinateHosts: [],
  sponsor: US,
  expiresAt: '2027-03-01T00:00:00.0Z',
  rgpStatuses: [],
  dsRecords: [],
  ...over,
});

const transfer = (over: Partial<TransferData> = {}): TransferData => ({
  name: 'example.test',
  status: 'pending',
  requestedBy: US,
  requestedAt: '2026-11-20T10:00:00.0Z',
  ...over,
});

describe('the EPP registrar reading a domain', () => {
  it('counts the domain locked only when every configured lock status is set', () => {
    const statuses = ['clientTransferProhibited', 'clientDeleteProhibited'];
    expect(isLocked(info({ statuses }), statuses)).toBe(true);
    expect(isLocked(info({ statuses: ['clientTransferProhibited'] }), statuses)).toBe(false);
  });

  it.each([
    [{ statuses: ['pendingCreate'] }, 'Pending Registration'],
    [{ statuses: ['pendingTransfer'] }, 'Pending Transfer'],
    [{ rgpStatuses: ['redemptionPeriod'] }, 'Redemption'],
    [{ rgpStatuses: ['pendingRestore'] }, 'Redemption'],
    [{ statuses: ['pendingDelete'] }, 'Cancelled'],
    [{ expiresAt: '2026-11-01T00:00:00.0Z', rgpStatuses: ['autoRenewPeriod'] }, 'Grace'],
    [{ expiresAt: '2026-11-01T00:00:00.0Z' }, 'Expired'],
    [{}, 'Active'],
  ] as const)('reads %j as %s', (over, status) => {
    expect(statusOf(info(over as Partial<DomainInfo>), TODAY)).toBe(status);
  });

  it('takes the registrant and the first contact of each other role', () => {
    const contacts = [
      { type: 'admin' as const, id: 'A1' },
      { type: 'admin' as const, id: 'A2' },
      { type: 'tech' as const, id: 'T1' },
    ];
    expect(roleIds(info({ registrant: 'R1', contacts }))).toEqual({ registrant: 'R1', admin: 'A1', tech: 'T1' });
  });
});

describe('domain sync from the registry answers', () => {
  it('is active with the registry expiry while we sponsor it and it has not expired', () => {
    expect(syncOfInfo(info(), US, TODAY)).toEqual({
      ok: true,
      active: true,
      expired: false,
      transferredAway: false,
      cancelled: false,
      expiryDate: '2027-03-01',
    });
  });

  it('is expired, not active, past the expiry date', () => {
    expect(syncOfInfo(info({ expiresAt: '2026-11-25T00:00:00.0Z' }), US, TODAY)).toMatchObject({
      active: false,
      expired: true,
      cancelled: false,
    });
  });

  it.each([
    [{ statuses: ['pendingDelete'] }],
    [{ rgpStatuses: ['redemptionPeriod'] }],
    [{ rgpStatuses: ['pendingDelete'] }],
  ])('is cancelled, neither active nor expired, once deleted (%j)', (over) => {
    expect(syncOfInfo(info(over), US, TODAY)).toMatchObject({ active: false, expired: false, cancelled: true });
  });

  it('is transferred away when another registrar sponsors it, with the expiry the registry shows', () => {
    expect(syncOfInfo(info({ sponsor: 'other-clid' }), US, TODAY)).toEqual({
      ok: true,
      active: false,
      expired: false,
      transferredAway: true,
      expiryDate: '2027-03-01',
    });
  });

  it('is pending while the registry is still creating it', () => {
    expect(syncOfInfo(info({ statuses: ['pendingCreate'] }), US, TODAY)).toMatchObject({
      ok: false,
      reason: 'pending',
    });
  });

  it('is pending, not gone, when the registry hides a domain whose transfer to us is still running', () => {
    expect(syncOfUnshown(transfer(), US, 'example.test')).toMatchObject({ ok: false, reason: 'pending' });
    expect(syncOfUnshown(transfer({ requestedBy: 'other-clid' }), US, 'example.test')).toMatchObject({
      transferredAway: true,
    });
    expect(syncOfUnshown(undefined, US, 'example.test')).toMatchObject({ ok: true, transferredAway: true });
  });

  it('is cancelled when the registry does not hold the domain at all', () => {
    expect(SYNC_OF_ABSENT).toMatchObject({ ok: true, active: false, transferredAway: false, cancelled: true });
  });

  it("takes poll news of another registrar's approved transfer as transferred away, and ours or a pending one not", () => {
    expect(isTransferredAwayBy(transfer({ requestedBy: 'other-clid', status: 'clientApproved' }), US)).toBe(true);
    expect(isTransferredAwayBy(transfer({ requestedBy: 'other-clid', status: 'serverApproved' }), US)).toBe(true);
    expect(isTransferredAwayBy(transfer({ requestedBy: 'other-clid', status: 'pending' }), US)).toBe(false);
    expect(isTransferredAwayBy(transfer({ status: 'clientApproved' }), US)).toBe(false);
    expect(isTransferredAwayBy(undefined, US)).toBe(false);
  });
});

describe('transfer sync from the registry answers', () => {
  it('waits while our transfer is pending', () => {
    expect(transferSyncOfTransfer(transfer(), US)).toEqual({ ok: true, completed: false, failed: false });
  });

  it('completes an approved transfer with its new expiry, or none for the caller to ask', () => {
    expect(
      transferSyncOfTransfer(transfer({ status: 'serverApproved', expiresAt: '2028-01-02T00:00:00.0Z' }), US),
    ).toEqual({ ok: true, completed: true, failed: false, expiryDate: '2028-01-02' });
    expect(transferSyncOfTransfer(transfer({ status: 'clientApproved' }), US)).toEqual({
      ok: true,
      completed: true,
      failed: false,
      expiryDate: undefined,
    });
  });

  it('fails a rejected or cancelled transfer saying who ended it', () => {
    expect(transferSyncOfTransfer(transfer({ status: 'clientRejected' }), US)).toEqual({
      ok: true,
      completed: false,
      failed: true,
      reason: 'the transfer was rejected by the losing registrar',
    });
    expect(transferSyncOfTransfer(transfer({ status: 'serverCancelled' }), US)).toMatchObject({
      reason: 'the transfer was cancelled by the registry',
    });
  });

  it("leaves someone else's transfer, or none, to who sponsors the domain", () => {
    expect(transferSyncOfTransfer(transfer({ requestedBy: 'other-clid' }), US)).toBeUndefined();
    expect(transferSyncOfTransfer(undefined, US)).toBeUndefined();
    expect(transferSyncOfSponsor(info(), US, 'example.test')).toEqual({
      ok: true,
      completed: true,
      failed: false,
      expiryDate: '2027-03-01',
    });
    expect(transferSyncOfSponsor(info({ sponsor: 'other-clid' }), US, 'example.test')).toEqual({
      ok: true,
      completed: false,
      failed: true,
      reason: 'no transfer of example.test is pending and another registrar sponsors it',
    });
    expect(transferSyncOfSponsor(undefined, US, 'example.test')).toMatchObject({ failed: true });
  });
});
