import { recordChange } from '../audit/audit-log';
import { ulid } from '../common/ids';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import type { CreditChanged } from '../common/events';
import { formatAmount, type Minor } from '../common/money';
import type { UnitOfWork } from '../common/unit-of-work';
import { postWithBalance, type LedgerEntry } from './ledger';

export class CreditService {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
  ) {}

  balance(resellerId: string): Promise<Minor> {
    return this.uow.read.ledger.balance(resellerId);
  }

  /**
   * The balance of a request's reseller: the one read in its authentication's statement when
   * there is one (committed state as a read now would see it, one statement fewer: ADR 12), else
   * read from the ledger.
   */
  async balanceOf(reseller: { readonly id: string; readonly balance?: Minor }): Promise<Minor> {
    return reseller.balance ?? this.balance(reseller.id);
  }

  /**
   * A top-up (positive) or an adjustment (negative) by the operator. An adjustment that would take
   * the balance below zero is refused whole, and so is a top-up of a closed account.
   */
  async adjust(
    resellerId: string,
    amount: Minor,
    note: string | null,
  ): Promise<{ entry: LedgerEntry; balance: Minor }> {
    if (!Number.isSafeInteger(amount) || amount === 0)
      throw new DomainError('validation_failed', 'amount must be a non-zero decimal like 25.00 or -5.00');
    const entry: LedgerEntry = {
      id: ulid(),
      resellerId,
      amount,
      kind: amount > 0 ? 'top_up' : 'adjustment',
      orderId: null,
      note: note?.slice(0, 255) ?? null,
      createdAt: this.clock.now(),
    };
    return this.uow.run(async ({ resellers, ledger, outbox, audit }) => {
      // Locked first, as `ResellerService.close` locks it first (its status change): a top-up and a
      // close of one account take turns, so the close sees the credit and is refused, or the top-up
      // sees the account closed. Taking credit off a closed account (a refund) stays possible.
      const reseller = await resellers.lockById(resellerId);
      if (reseller?.status === 'closed' && amount > 0)
        throw new DomainError('conflict', `${reseller.email} is closed: credit cannot be added to a closed account`);
      const after = await postWithBalance(ledger, entry);
      if (after === null) {
        const balance = await ledger.balance(resellerId);
        throw new DomainError(
          'insufficient_credit',
          `the balance is ${formatAmount(balance)}; an adjustment of ${formatAmount(amount)} would take it below zero`,
        );
      }
      outbox.push({ name: 'credit.changed', event: creditChanged(entry, after) });
      await recordChange(audit, this.clock, {
        action: amount > 0 ? 'reseller.credit.add' : 'reseller.credit.adjust',
        subject: { kind: 'reseller', id: resellerId },
        before: { balance: formatAmount(after - amount) },
        after: { balance: formatAmount(after), amount: formatAmount(amount), reason: entry.note, entryId: entry.id },
      });
      return { entry, balance: after };
    });
  }

  /** The ledger invariant: the running balance equals the sum of the entries and is never negative. */
  async verify(resellerId: string): Promise<{ balance: Minor; sumOfEntries: Minor; consistent: boolean }> {
    const [balance, sumOfEntries] = await Promise.all([
      this.uow.read.ledger.balance(resellerId),
      this.uow.read.ledger.sumOfEntries(resellerId),
    ]);
    return { balance, sumOfEntries, consistent: balance === sumOfEntries && balance >= 0 };
  }

  entries(resellerId: string, limit = 100): Promise<LedgerEntry[]> {
    return this.uow.read.ledger.entries(resellerId, limit);
  }
}

/** The event for a ledger entry that committed, with the balance read in its transaction. */
export function creditChanged(entry: LedgerEntry, balance: Minor): CreditChanged {
  return {
    resellerId: entry.resellerId,
    entryId: entry.id,
    amount: entry.amount,
    kind: entry.kind,
    orderId: entry.orderId,
    balance,
    at: entry.createdAt,
  };
}
