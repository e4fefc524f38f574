import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // Every change made from the console, the portal or a CLI command: who, when, what, before and after.
  // Append-only: the application inserts and reads; only the retention purge deletes (docs/console.md).
  await knex.schema.createTable('audit_log', (t) => {
    t.string('id', 26).primary();
    t.bigInteger('at').notNullable();
    // operator | reseller | cli | system
    t.string('actor_kind', 16).notNullable();
    t.string('actor_id', 64).nullable();
    t.string('actor_label', 254).notNullable();
    // A verb on a thing, like "reseller.credit.adjust" or "operator.sign_in.failed".
    t.string('action', 64).notNullable();
    t.string('subject_kind', 32).nullable();
    t.string('subject_id', 254).nullable();
    // JSON, secrets left out by the caller.
    t.text('before').nullable();
    t.text('after').nullable();
    t.string('client_ip', 64).nullable();
    t.string('request_id', 64).nullable();
    t.index(['at', 'id']);
    t.index(['subject_kind', 'subject_id', 'at']);
    t.index(['actor_kind', 'actor_id', 'at']);
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.dropTable('audit_log');
}
