import { fixedClock } from '../../../../src/core/common/clock';
import type { Repositories, UnitOfWork } from '../../../../src/core/common/unit-of-work';
import type { LedgerEntry, LedgerRepository } from '../../../../src/core/credit/ledger';
import { AccountLists } from '../../../../src/core/reseller/account-lists';

/** A host's ledger (docs/embedding.md) without the optional `statement`: the lists fall back to its newest entries. */
function hostLedger(entries: LedgerEntry[]): LedgerRepository {
  const of = (id: string) => entries.filter((e) => e.resellerId === id);
  return {
    openAccount: async () => undefined,
    post: async () => true,
    balance: async (id) => of(id).reduce((sum, e) => sum + e.amount, 0),
    totalBalance: async () => entries.reduce((sum, e) => sum + e.amount, 0),
    sumOfEntries: async (id) => of(id).reduce((sum, e) => sum + e.amount, 0),
    entries: async (id, limit) =>
      of(id)
        .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1))
        .slice(0, limit),
  };
}

const entry = (id: string, resellerId: string, amount: number, at: string): LedgerEntry => ({
  id,
  resellerId,
  amount,
  kind: amount > 0 ? 'top_up' : 'adjustment',
  orderId: null,
  note: null,
  createdAt: new Date(at),
});

describe('AccountLists', () => {
  describe('statement over a ledger without its own statement query', () => {
    const ledger = hostLedger([
      entry('01A', 'r1', 10_000, '2026-11-01T10:00:00Z'),
      entry('01B', 'r1', -2_500, '2026-11-10T10:00:00Z'),
      entry('01C', 'other', 99_900, '2026-11-10T11:00:00Z'),
      entry('01D', 'r1', 1_000, '2026-11-20T10:00:00Z'),
    ]);
    const uow = { read: { ledger } as unknown as Repositories, run: () => Promise.reject() } as UnitOfWork;
    const lists = new AccountLists(uow, fixedClock('2026-11-21T00:00:00Z'));

    it('walks back from the balance to give each entry its running balance', async () => {
      const statement = await lists.statement('r1');
      expect(statement.items.map((l) => [l.id, l.balance])).toEqual([
        ['01A', 10_000],
        ['01B', 7_500],
        ['01D', 8_500],
      ]);
      expect([statement.openingBalance, statement.closingBalance, statement.next]).toEqual([0, 8_500, null]);
    });

    it('opens a date range and a later page with the balance before it', async () => {
      const range = await lists.statement('r1', { from: '2026-11-05', to: '2026-11-15' });
      expect(range.items.map((l) => l.id)).toEqual(['01B']);
      expect([range.openingBalance, range.closingBalance]).toEqual([10_000, 7_500]);
      const first = await lists.statement('r1', { limit: 2 });
      const second = await lists.statement('r1', { limit: 2, cursor: first.next! });
      expect(second.items.map((l) => l.id)).toEqual(['01D']);
      expect(second.openingBalance).toBe(first.closingBalance);
    });
  });
});
