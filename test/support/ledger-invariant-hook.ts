import { expectLedgerInvariant, openLedgers } from './ledger-invariant';

// After every test, in every file: balance = sum of entries, never negative, and every order's
// entries net to its state, on each database the file has open (see openLedgers).
afterEach(async () => {
  for (const db of openLedgers) await expectLedgerInvariant(db);
});
