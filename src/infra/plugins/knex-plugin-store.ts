import type { Knex } from 'knex';
import { PLUGIN_STORE_MAX_KEY_LENGTH, type PluginStore } from '../../core/registrar/plugin';
import type { Clock } from '../../core/common/clock';
import { isUniqueViolation } from '../db/errors';
import { type DatabasePools, knexPools } from '../db/driver-pools';
import { rowInsert, StatementTexts } from '../db/statement-text';

const checkKey = (key: string): string => {
  if (typeof key !== 'string' || key.length === 0 || key.length > PLUGIN_STORE_MAX_KEY_LENGTH) {
    throw new Error(`plugin store keys must be 1 to ${PLUGIN_STORE_MAX_KEY_LENGTH} characters`);
  }
  return key;
};

const GET = 'SELECT value FROM plugin_state WHERE plugin_id = ? AND state_key = ?';

type StateColumn = 'plugin_id' | 'state_key' | 'value' | 'updated_at';
/** The two writes of every registration through the sandbox, their text built by knex once per dialect (src/infra/db/statement-text.ts). */
const INSERT = rowInsert<StateColumn>('plugin_state');
const SET = new StatementTexts<StateColumn>((db, value) =>
  db('plugin_state')
    .insert({
      plugin_id: value('plugin_id'),
      state_key: value('state_key'),
      value: value('value'),
      updated_at: value('updated_at'),
    })
    .onConflict(['plugin_id', 'state_key'])
    .merge(['value', 'updated_at']),
);

/**
 * `PluginHost.store` on the platform database: one row per key in `plugin_state`, scoped to one
 * plugin. A registrar call may read and write it on every order (the sandbox does), so with the
 * module's own database `get` goes through the driver's own connection (`reads`) and, on
 * MySQL/MariaDB, the writes knex builds go through the driver's pool (src/infra/db/driver-pools.ts).
 * Each is one statement outside any transaction, as through knex.
 */
export class KnexPluginStore implements PluginStore {
  private readonly reads: DatabasePools['reads'];
  private readonly writes: DatabasePools['writes'];

  constructor(
    private readonly db: Knex,
    private readonly pluginId: string,
    private readonly clock: Clock,
    pools: Pick<DatabasePools, 'reads' | 'writes'> = knexPools(db),
  ) {
    this.reads = pools.reads;
    this.writes = pools.writes;
  }

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const row = await this.reads.first<{ value: string }>(GET, [this.pluginId, checkKey(key)]);
    return row ? (JSON.parse(row.value) as T) : undefined;
  }

  async set(key: string, value: unknown): Promise<void> {
    await this.send(SET.text(this.db, 'set', this.row(key, value)));
  }

  async setIfAbsent(key: string, value: unknown): Promise<boolean> {
    try {
      await this.send(INSERT.text(this.db, 'row', this.row(key, value)));
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  async delete(key: string): Promise<void> {
    await this.run(
      this.db('plugin_state')
        .where({ plugin_id: this.pluginId, state_key: checkKey(key) })
        .delete(),
    );
  }

  async keys(prefix = ''): Promise<string[]> {
    // Compared by substring rather than LIKE, so "%" and "_" in a prefix mean themselves.
    const rows: Array<{ state_key: string }> = await this.db('plugin_state')
      .select('state_key')
      .where({ plugin_id: this.pluginId })
      .orderBy('state_key');
    return rows.map((r) => r.state_key).filter((k) => k.startsWith(prefix));
  }

  private row(key: string, value: unknown): Record<StateColumn, unknown> {
    return {
      plugin_id: this.pluginId,
      state_key: checkKey(key),
      value: serialise(value),
      updated_at: this.clock.now().getTime(),
    };
  }

  /** A write knex built, sent through the driver's pool when there is one, else through knex. */
  private async run(write: Knex.QueryBuilder): Promise<void> {
    await this.send(write.toSQL().toNative());
  }

  private async send({ sql, bindings }: { sql: string; bindings: readonly unknown[] }): Promise<void> {
    await this.writes.write(sql, bindings);
  }
}

function serialise(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error('plugin store values must be JSON-serialisable');
  return text;
}
