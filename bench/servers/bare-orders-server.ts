/**
 * The baseline of the orders benchmark: a bare Koa server doing, for POST /order, the bare
 * transactions a registration needs on the platform's own tables, and nothing else (no
 * authentication, validation, catalogue, registrar, idempotency or logging):
 *   1. reserve: conditional debit of the balance, the debit entry, the pending domain, the pending order;
 *   2. complete: the order completed, the domain Active.
 * The reseller is the `x-reseller` header, the domain the form body's `domain`; the price 10.00.
 * Ids are made as the module makes them (src/core/common/ids.ts): the `ulid` package's own
 * generator asks the platform for a random byte per character, a sixth of this server's CPU.
 * Environment: DATABASE_URL, PORT, HOST, DB_POOL_MAX.
 */
import Koa from 'koa';
import { ulid } from '../../src/core/common/ids';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';

const PRICE = 10_00;
const db = connectDatabase(parseDatabaseUrl(process.env.DATABASE_URL ?? ''), {
  poolMax: Number(process.env.DB_POOL_MAX ?? 10),
});

const readBody = (req: NodeJS.ReadableStream) =>
  new Promise<string>((resolve, reject) => {
    let text = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => {
      text += chunk;
    });
    req.on('end', () => resolve(text));
    req.on('error', reject);
  });

const app = new Koa();
app.use(async (ctx) => {
  if (ctx.method !== 'POST' || ctx.path !== '/order') {
    ctx.status = 404;
    return;
  }
  const resellerId = String(ctx.get('x-reseller'));
  const domain = new URLSearchParams(await readBody(ctx.req)).get('domain') ?? '';
  const now = Date.now();
  const orderId = ulid();
  const domainId = ulid();
  const reserved = await db.transaction(async (trx) => {
    const moved = await trx('credit_accounts')
      .where({ reseller_id: resellerId })
      .andWhere('balance_minor', '>=', PRICE)
      .update({ balance_minor: trx.raw('balance_minor - ?', [PRICE]) });
    if (moved !== 1) return false;
    await trx('credit_entries').insert({
      id: ulid(),
      reseller_id: resellerId,
      amount_minor: -PRICE,
      kind: 'order_debit',
      order_id: orderId,
      note: null,
      created_at: now,
    });
    await trx('domains').insert({
      id: domainId,
      name: domain,
      unicode_name: domain,
      tld: '.com',
      reseller_id: resellerId,
      registrar: 'sandbox',
      status: 'Pending Registration',
      expiry_date: null,
      nameservers: '[]',
      transfer_lock: null,
      dns_management: false,
      email_forwarding: false,
      id_protection: false,
      created_at: now,
      updated_at: now,
    });
    await trx('orders').insert({
      id: orderId,
      reseller_id: resellerId,
      action: 'register',
      domain_id: domainId,
      domain_name: domain,
      registrar: 'sandbox',
      period: 1,
      price_minor: PRICE,
      status: 'pending',
      open_domain: domain,
      request: '{}',
      created_at: now,
      updated_at: now,
    });
    return true;
  });
  if (!reserved) {
    ctx.status = 400;
    ctx.body = { error: 'insufficient credit' };
    return;
  }
  await db.transaction(async (trx) => {
    await trx('orders')
      .where({ id: orderId, status: 'pending' })
      .update({ status: 'completed', open_domain: null, expiry_date: '2027-11-21', settled_at: now, updated_at: now });
    await trx('domains')
      .where({ id: domainId })
      .update({ status: 'Active', expiry_date: '2027-11-21', updated_at: now });
  });
  ctx.type = 'application/json';
  ctx.body = '"success"';
});
const server = app.listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
const stop = () => server.close(() => void db.destroy().then(() => process.exit(0)));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
