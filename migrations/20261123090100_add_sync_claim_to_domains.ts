import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Background sync on several processes: a domain is claimed with a lease (a conditional update)
  // before its registrar is asked, and stamped when it was synced, so no two processes sync it in
  // one round. One ALTER statement on MariaDB, so it applies whole or not at all.
  await knex.schema.alterTable('domains', (t) => {
    t.bigInteger('synced_at').nullable();
    t.bigInteger('sync_lease_until').nullable();
    t.string('sync_owner', 64).nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('domains', (t) => {
    t.dropColumn('synced_at');
    t.dropColumn('sync_lease_until');
    t.dropColumn('sync_owner');
  });
}
