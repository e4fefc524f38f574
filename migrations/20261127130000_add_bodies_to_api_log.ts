import type { Knex } from 'knex';

export async function up(knex: Knex): Promise<void> {
  // The request's parameters and the reply, secrets redacted and each capped (docs/api.md#api-log):
  // the portal and console show a call's "request and reply".
  await knex.schema.alterTable('api_log', (t) => {
    t.text('request_body').nullable();
    t.text('reply_body').nullable();
  });
}

export async function down(knex: Knex): Promise<void> {
  await knex.schema.alterTable('api_log', (t) => {
    t.dropColumn('request_body');
    t.dropColumn('reply_body');
  });
}
