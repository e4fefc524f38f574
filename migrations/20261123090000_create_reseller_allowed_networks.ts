import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // A reseller's IP allow-list: requests must come from one of these ranges (none: any address).
  await knex.schema.createTable('reseller_allowed_networks', (t) => {
    t.string('reseller_id', 26).notNullable().references('id').inTable('resellers');
    // Canonical CIDR text, like 203.0.113.0/24 or 2001:db8::/32.
    t.string('cidr', 64).notNullable();
    t.bigInteger('created_at').notNullable();
    t.primary(['reseller_id', 'cidr']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('reseller_allowed_networks');
}
