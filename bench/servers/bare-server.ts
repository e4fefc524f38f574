/**
 * The baseline of the authenticated-reads benchmark: a bare Koa server answering
 * GET /billing/credits with the same single-row query the module makes for the balance, on the
 * same knex pool settings, and nothing else: no authentication, no container, no logging, no
 * route table. Environment: DATABASE_URL, PORT, HOST, BENCH_RESELLER_ID.
 */
import Koa from 'koa';
import { formatAmount } from '../../src/core/common/money';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';

const db = connectDatabase(parseDatabaseUrl(process.env.DATABASE_URL ?? ''), {
  poolMax: Number(process.env.DB_POOL_MAX ?? 10),
});
const resellerId = process.env.BENCH_RESELLER_ID ?? '';

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method !== 'GET' || ctx.path !== '/billing/credits') {
    ctx.status = 404;
    return;
  }
  const row = await db('credit_accounts').select('balance_minor').where({ reseller_id: resellerId }).first();
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(formatAmount(Number(row?.balance_minor ?? 0)));
});
const server = app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
const stop = () => server.close(() => void db.destroy().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
