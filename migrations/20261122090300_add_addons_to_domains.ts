import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Addons (docs/api.md#addons-field) held per domain. One ALTER statement on MariaDB, so it applies whole or not at all.
  await knex.schema.alterTable('domains', (t) => {
    t.boolean('dns_management').notNullable().defaultTo(false);
    t.boolean('email_forwarding').notNullable().defaultTo(false);
    t.boolean('id_protection').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropColumn('dns_management');
    t.dropColumn('email_forwarding');
    t.dropColumn('id_protection');
  });
}
