import type { Knex } from 'knex';
import { galeraSettingProblems } from '../../../src/infra/db/galera-settings';

/** A MariaDB knex whose SHOW GLOBAL VARIABLES answers `variables` (mysql2's `[rows, fields]`). */
const mariadbSaying = (variables: Record<string, string> | Error): Knex =>
  ({
    client: { config: { client: 'mysql2' } },
    raw: async () => {
      if (variables instanceof Error) throw variables;
      return [Object.entries(variables).map(([Variable_name, Value]) => ({ Variable_name, Value })), []];
    },
  }) as unknown as Knex;

describe('the Galera settings said at start', () => {
  it('says nothing of a node set as docs/operations.md asks', async () => {
    expect(
      await galeraSettingProblems(mariadbSaying({ wsrep_on: 'ON', wsrep_slave_threads: '4', wsrep_sync_wait: '1' })),
    ).toEqual([]);
    expect(
      await galeraSettingProblems(mariadbSaying({ wsrep_on: 'ON', wsrep_slave_threads: '2', wsrep_sync_wait: '3' })),
    ).toEqual([]);
  });

  it('names one applier thread and reads that are not made to wait for the cluster', async () => {
    const problems = await galeraSettingProblems(
      mariadbSaying({ wsrep_on: 'ON', wsrep_slave_threads: '1', wsrep_sync_wait: '2' }),
    );
    expect(problems).toEqual([
      expect.stringMatching(/^wsrep_sync_wait is 2: set it to 1 on every node/),
      expect.stringMatching(/^wsrep_slave_threads is 1: set it to 2 or more on every node/),
    ]);
  });

  it("reads MySQL-wsrep's name for the applier threads, and says nothing of a setting the server does not report", async () => {
    expect(
      await galeraSettingProblems(mariadbSaying({ wsrep_on: 'ON', wsrep_applier_threads: '1', wsrep_sync_wait: '1' })),
    ).toEqual([expect.stringMatching(/^wsrep_applier_threads is 1: set it to 2 or more on every node/)]);
    expect(await galeraSettingProblems(mariadbSaying({ wsrep_on: 'ON' }))).toEqual([]);
  });

  it('says nothing where there is no Galera: a plain MariaDB, a MySQL without the variables, a server that will not say, SQLite', async () => {
    expect(
      await galeraSettingProblems(mariadbSaying({ wsrep_on: 'OFF', wsrep_slave_threads: '1', wsrep_sync_wait: '0' })),
    ).toEqual([]);
    expect(await galeraSettingProblems(mariadbSaying({}))).toEqual([]);
    expect(await galeraSettingProblems(mariadbSaying(new Error('SHOW command denied')))).toEqual([]);
    const sqlite = { client: { config: { client: 'better-sqlite3' } }, raw: jest.fn() } as unknown as Knex;
    expect(await galeraSettingProblems(sqlite)).toEqual([]);
    expect(sqlite.raw).not.toHaveBeenCalled();
  });
});
