import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Each registrar plugin's private key/value storage (PluginHost.store), shared by the server and the CLI.
  const isMysql = String(knex.client.config.client).includes('mysql');
  await knex.schema.createTable('plugin_state', (t) => {
    t.string('plugin_id', 64).notNullable();
    // 191 characters: the longest utf8mb4 key MariaDB indexes in every row format. Binary collation:
    // keys are case-sensitive on every engine, as a key/value store's keys should be.
    const key = t.string('state_key', 191).notNullable();
    if (isMysql) key.collate('utf8mb4_bin');
    t.text('value', 'mediumtext').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.primary(['plugin_id', 'state_key']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('plugin_state');
}
