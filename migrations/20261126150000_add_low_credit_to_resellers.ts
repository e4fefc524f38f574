import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The reseller's low-credit threshold (integer minor units; NULL: no alert) and whether the
  // balance is below it now: `credit.low` is published once per fall below, again only after the
  // balance has risen to the threshold or above (docs/events.md#credit-low).
  await knex.schema.alterTable('resellers', (t) => {
    t.bigInteger('low_credit_threshold_minor').nullable();
    t.boolean('is_credit_low').notNullable().defaultTo(false);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('resellers', (t) => {
    t.dropColumn('low_credit_threshold_minor');
    t.dropColumn('is_credit_low');
  });
}
