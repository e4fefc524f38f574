import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  await knex.schema.createTable('orders', (t) => {
    t.string('id', 26).primary();
    t.string('reseller_id', 26).notNullable().references('id').inTable('resellers');
    t.string('action', 16).notNullable();
    t.string('domain_id', 26).notNullable();
    t.string('domain_name', 253).notNullable();
    t.string('registrar', 64).notNullable();
    t.integer('period').notNullable();
    // Integer minor units: the amount reserved from the balance when the order was placed.
    t.bigInteger('price_minor').notNullable();
    t.string('status', 16).notNullable();
    // The domain name while the order is pending, NULL once settled: a unique index on it means one
    // domain can never have two open orders, whatever races the application loses.
    t.string('open_domain', 253).nullable().unique();
    // The domain row as it was before the order took it over (JSON), NULL when the order created it.
    t.text('prior_domain').nullable();
    t.text('request', 'mediumtext').nullable();
    t.text('original_vars').nullable();
    t.string('idempotency_key', 255).nullable();
    t.string('expiry_date', 10).nullable();
    t.string('note', 1024).nullable();
    // Whoever may act on a pending order until lease_until (ms): the request path, then one reconciler.
    t.string('lease_owner', 64).nullable();
    t.bigInteger('lease_until').nullable();
    t.integer('reconcile_attempts').notNullable().defaultTo(0);
    t.bigInteger('created_at').notNullable();
    t.bigInteger('updated_at').notNullable();
    t.bigInteger('settled_at').nullable();
    t.index(['status', 'lease_until']);
    t.index(['reseller_id', 'created_at']);
    t.index(['domain_name']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('orders');
}
