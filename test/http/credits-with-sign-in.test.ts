import type { LedgerEntry, LedgerRepository } from '../../src/core/credit/ledger';
import type { Minor } from '../../src/core/common/money';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { knexLedger } from '../../src/infra/repositories/knex-unit-of-work';
import { startHarness, type Harness } from '../support/harness';

/**
 * ADR 12: `GET /billing/credits` answers the balance authentication read with the reseller in
 * its one statement — only while the ledger is the module's own.
 */
describe('GET /billing/credits with the module’s own ledger', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('answers the balance committed before the request, whoever wrote it', async () => {
    expect((await h.http.get('/billing/credits').set(h.headers())).body).toBe('100.00');
    // Another process (the CLI, a second server) debits the account: the next request sees it.
    const other = connectDatabase(parseDatabaseUrl(h.databaseUrl));
    const [{ id }] = await other('resellers').select('id');
    await other.transaction((trx) =>
      knexLedger(trx).post({
        id: '01JZZZZZZZZZZZZZZZZZZZZZZZ',
        resellerId: id,
        amount: -5_679,
        kind: 'adjustment',
        orderId: null,
        note: null,
        createdAt: new Date(),
      }),
    );
    await other.destroy();
    const res = await h.http.get('/billing/credits').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toBe('43.21');
  });
});

/** A host's ledger keeps balances elsewhere; here it reports 7.77 for everyone. */
class HostLedger implements LedgerRepository {
  constructor(private readonly inner: LedgerRepository) {}
  openAccount(resellerId: string): Promise<void> {
    return this.inner.openAccount(resellerId);
  }
  post(entry: LedgerEntry): Promise<boolean> {
    return this.inner.post(entry);
  }
  async balance(): Promise<Minor> {
    return 777;
  }
  totalBalance(): Promise<Minor> {
    return this.inner.totalBalance();
  }
  sumOfEntries(resellerId: string): Promise<Minor> {
    return this.inner.sumOfEntries(resellerId);
  }
  entries(resellerId: string, limit: number): Promise<LedgerEntry[]> {
    return this.inner.entries(resellerId, limit);
  }
}

describe('GET /billing/credits with a ledger the host rebound', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({
      ports: { ledgerFactory: () => (connection) => new HostLedger(knexLedger(connection)) },
    });
  });
  afterAll(async () => {
    await h.close();
  });

  it("answers the host ledger's balance, not the module's credit_accounts row read at sign-in", async () => {
    const res = await h.http.get('/billing/credits').set(h.headers());
    expect(res.status).toBe(200);
    expect(res.body).toBe('7.77');
  });
});
