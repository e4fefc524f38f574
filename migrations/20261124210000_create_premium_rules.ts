import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('premium_rules', (t) => {
    t.string('group_id', 26).primary().references('id').inTable('reseller_groups');
    // The group's premium rule as JSON (src/core/catalogue/premium.ts); a group without a row sells no premium names.
    t.text('rule').notNullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('premium_rules');
}
