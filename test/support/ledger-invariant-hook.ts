import { expectLedgerInvariant, memoryLedgerProblems, openLedgers, openMemoryLedgers } from './ledger-invariant';

// After every test, in every file: balance = sum of entries, never negative, and every order's
// entries net to its state, on each database the file has open (see openLedgers) and each memory twin.
afterEach(async () => {
  for (const db of openLedgers) await expectLedgerInvariant(db);
  for (const uow of openMemoryLedgers) expect(memoryLedgerProblems(uow)).toEqual([]);
});
