import type { Knex } from 'knex';
import { databaseKind, rawRows } from './database-kind';

/**
 * What a Galera node this process talks to has set differently from what docs/operations.md
 * ("Galera") asks: said at start, since both only show under concurrent load from several nodes.
 * Nothing on SQLite, on a server without Galera, when the server will not say, or of a setting it
 * does not report.
 */
export async function galeraSettingProblems(knex: Knex): Promise<string[]> {
  if (databaseKind(knex) !== 'mysql') return [];
  let rows: Array<{ Variable_name: string; Value: string }>;
  try {
    rows = rawRows(
      knex,
      await knex.raw(
        "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('wsrep_on', 'wsrep_slave_threads', 'wsrep_applier_threads', 'wsrep_sync_wait')",
      ),
    );
  } catch {
    return [];
  }
  const value = new Map(rows.map((r) => [r.Variable_name.toLowerCase(), String(r.Value)]));
  if (value.get('wsrep_on')?.toUpperCase() !== 'ON') return [];
  const problems: string[] = [];
  const syncWait = value.get('wsrep_sync_wait');
  if (syncWait !== undefined && (Number(syncWait) & 1) === 0)
    problems.push(
      `wsrep_sync_wait is ${syncWait}: set it to 1 on every node, or a request on one node may not see a change just made through another`,
    );
  // MariaDB's name for it, and MySQL-wsrep's since 8.0.26.
  const [name, appliers] =
    [...value].find(([key]) => key === 'wsrep_slave_threads' || key === 'wsrep_applier_threads') ?? [];
  if (appliers !== undefined && Number(appliers) < 2)
    problems.push(
      `${name} is ${appliers}: set it to 2 or more on every node, or two orders for one name sent to different nodes can stall a node for the lock wait timeout`,
    );
  return problems;
}
