import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The registry's yearly premium costs of a name the platform sold as premium, as JSON
  // ({ register?, renew?, transfer? } in minor units); null for a name sold at the catalogue price.
  // A renewal of such a name is refused, never charged the catalogue price, when its registrar
  // cannot tell the renewal price (docs/orders.md#premium-names).
  await knex.schema.alterTable('domains', (t) => {
    t.text('premium_costs').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropColumn('premium_costs');
  });
}
