import knex, { type Knex } from 'knex';
import { endsTransaction, isRetryableTransactionError } from '../../../src/infra/db/errors';
import { KnexLedgerRepository } from '../../../src/infra/repositories/knex-ledger-repository';

/** What mysql2 rejects with, reduced to what the classification reads. */
const driverError = (message: string, code: string, errno: number) =>
  Object.assign(new Error(message), { code, errno });
/** MariaDB's answer on Galera to the next statement of a transaction another node's commit aborted. */
const galeraAbort = () =>
  driverError('Deadlock found when trying to get lock; try restarting transaction', 'ER_LOCK_DEADLOCK', 1213);

describe('errors after which MariaDB has rolled the whole transaction back', () => {
  it('are a deadlock (on Galera also a conflict with another node) and a lost connection', () => {
    expect(endsTransaction(galeraAbort())).toBe(true);
    expect(endsTransaction({ errno: 1213 })).toBe(true);
    expect(endsTransaction(driverError('Connection lost', 'PROTOCOL_CONNECTION_LOST', 0))).toBe(true);
    expect(endsTransaction(driverError('server has gone away', 'CR_SERVER_GONE_ERROR', 2006))).toBe(true);
  });

  // A lock wait timeout undoes its statement (with innodb_rollback_on_timeout=ON the whole
  // transaction): either way what would be committed after it is not what the work built.
  it('include a lock wait timeout, which is not run again', () => {
    const timeout = driverError('Lock wait timeout exceeded; try restarting transaction', 'ER_LOCK_WAIT_TIMEOUT', 1205);
    expect(endsTransaction(timeout)).toBe(true);
    expect(isRetryableTransactionError(timeout)).toBe(false);
  });

  it('are not a duplicate key, which undoes only its statement and is an answer', () => {
    expect(endsTransaction(driverError('Duplicate entry', 'ER_DUP_ENTRY', 1062))).toBe(false);
    expect(endsTransaction(new Error('a bug'))).toBe(false);
    expect(endsTransaction(undefined)).toBe(false);
  });

  it('include the deadlock, which runs the whole unit of work again', () => {
    expect(isRetryableTransactionError(galeraAbort())).toBe(true);
  });
});

/**
 * The oversell on multi-primary Galera (issue 26): the ledger asked MariaDB's version inside the
 * order's transaction, took a failure of that question for "no INSERT … RETURNING", and went on.
 * When the failure was Galera aborting the transaction, the balance update was gone and the entry
 * and the order were committed in a new transaction without it. A driver stand-in answers here.
 */
describe('a debit on MariaDB whose question about the server fails', () => {
  let db: Knex;
  let sent: string[];
  let versionAnswer: () => unknown;

  beforeEach(() => {
    db = knex({ client: 'mysql2', connection: { host: '127.0.0.1', database: `stand_in_${Math.random()}` } });
    sent = [];
    const client = db.client as {
      acquireConnection: () => Promise<unknown>;
      releaseConnection: () => Promise<void>;
      _query: (connection: unknown, obj: { sql: string; response?: unknown }) => Promise<unknown>;
    };
    client.acquireConnection = async () => ({ __knexUid: 'stand-in' });
    client.releaseConnection = async () => undefined;
    client._query = async (_connection, obj) => {
      sent.push(obj.sql);
      if (obj.sql.startsWith('select version()')) obj.response = [versionAnswer(), []];
      else if (obj.sql.startsWith('update')) obj.response = [{ affectedRows: 1 }, []];
      else if (obj.sql.startsWith('insert') && obj.sql.includes('returning')) obj.response = [[{ balance: 9000 }], []];
      else if (obj.sql.startsWith('insert')) obj.response = [{ insertId: 0 }, []];
      else obj.response = [[{ balance_minor: 9000 }], []];
      return obj;
    };
  });
  afterEach(async () => {
    await db.destroy();
  });

  const debit = () =>
    new KnexLedgerRepository(db).postAndBalance({
      id: '01HDEBIT',
      resellerId: '01HRESELLER',
      amount: -1000,
      kind: 'order_debit',
      orderId: '01HORDER',
      note: 'register short-1.com for 1 year(s)',
      createdAt: new Date(0),
    });

  it('fails with that error and sends nothing more, so the transaction is rolled back and run again', async () => {
    versionAnswer = () => {
      throw galeraAbort();
    };
    await expect(debit()).rejects.toMatchObject({ errno: 1213 });
    // The question comes before the move (which may then travel with the entry's insert): nothing follows its failure.
    expect(sent.map((sql) => sql.split(' ').slice(0, 3).join(' '))).toEqual(['select version() as']);
  });

  it('asks again next time, and answers the balance from the insert once MariaDB says it can', async () => {
    versionAnswer = () => {
      throw galeraAbort();
    };
    await expect(debit()).rejects.toMatchObject({ errno: 1213 });
    versionAnswer = () => [{ version: '10.11.19-MariaDB-0+deb12u1' }];
    expect(await debit()).toBe(9000);
    expect(sent.filter((sql) => sql.startsWith('select version()'))).toHaveLength(2);
    expect(sent.at(-1)).toMatch(/^insert into `credit_entries` .* returning \(select `balance_minor`/);
  });
});
