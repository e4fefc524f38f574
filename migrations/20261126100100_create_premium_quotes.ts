import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The premium prices search quoted to a reseller (docs/orders.md#premium-quotes): an order for
  // the name within the quote's lifetime is accepted up to the quoted price without premiumCost,
  // in any process, so they live here rather than in memory. One row per reseller, name and action:
  // a newer quote replaces the older.
  await knex.schema.createTable('premium_quotes', (t) => {
    t.string('reseller_id', 26).notNullable().references('id').inTable('resellers');
    t.string('domain', 253).notNullable();
    t.string('action', 10).notNullable();
    // The group's yearly price as quoted, in minor units.
    t.bigInteger('price_minor').notNullable();
    t.bigInteger('quoted_at').notNullable();
    t.bigInteger('expires_at').notNullable();
    t.primary(['reseller_id', 'domain', 'action']);
    t.index(['expires_at'], 'premium_quotes_expires_at');
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('premium_quotes');
}
