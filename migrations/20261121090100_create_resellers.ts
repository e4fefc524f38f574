import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('resellers', (t) => {
    t.string('id', 26).primary();
    t.string('email', 254).notNullable().unique();
    t.string('group_id', 26).notNullable().references('id').inTable('reseller_groups');
    t.string('status', 16).notNullable();
    // AES-256-GCM sealed API key: the HMAC needs the key itself, so it cannot be hashed.
    t.string('sealed_api_key', 255).notNullable();
    t.bigInteger('created_at').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('resellers');
}
