import type { Knex } from 'knex';
import { directTransactionsOf, type HotReads } from './direct-reads';

const ANSWER_WITHIN_MS = 2_000;

/**
 * "ok", or why the database does not answer a trivial query within two seconds, on every way
 * the module reaches it: knex's pool, and the driver's own connection(s) when the module opened
 * them (they carry authentication and, on MySQL/MariaDB, every transaction, asked here with an
 * empty one: ADR 12, ADR 14).
 */
export async function databaseAnswers(knex: Knex, reads?: HotReads): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      Promise.all([
        knex.raw('select 1'),
        reads?.first('select 1 as ok', []),
        directTransactionsOf(reads)?.transaction(knex, (db) => db.raw('select 1')),
      ]),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${ANSWER_WITHIN_MS / 1000} s`)), ANSWER_WITHIN_MS);
      }),
    ]);
    return 'ok';
  } catch (error) {
    return `unreachable (${error instanceof Error ? error.message.split('\n')[0]!.slice(0, 120) : 'error'})`;
  } finally {
    clearTimeout(timer);
  }
}
