/**
 * A host billing platform that embeds the reseller module: its own Koa app and routes, its own
 * knex connection and tables, its own customers (who are the resellers) and its own balances.
 * It mounts the reseller API under /reseller-api and keeps an activity feed from the module's
 * events. Run it with `node --import tsx examples/host-app/main.ts` (one process, so signals reach it);
 * test/examples/host-app.test.ts and host-app-signals.test.ts run it too.
 *
 * In a host of your own, import from the package instead: `from 'domain-reseller'`.
 */
import Router from '@koa/router';
import type { Knex } from 'knex';
import Koa from 'koa';
import {
  createResellerModule,
  formatAmount,
  type AuthenticatingReseller,
  type LedgerEntry,
  type LedgerRepository,
  type PlatformEvents,
  type ResellerDirectory,
  type ResellerModule,
} from '../../src/index';

const GROUP = 'retail';

// ---- the host's own tables ----

async function ensureHostSchema(db: Knex): Promise<void> {
  if (!(await db.schema.hasTable('host_customers'))) {
    await db.schema.createTable('host_customers', (t) => {
      t.string('email', 254).primary();
      // The reseller id the module gave this customer (domains, orders and its API log refer to it).
      t.string('reseller_id', 26).notNullable().unique();
      t.string('group_id', 26).notNullable();
      // The host keeps the API key its customers sign requests with, in its own store.
      t.string('api_key', 128).notNullable();
      t.boolean('suspended').notNullable().defaultTo(false);
      // The host keeps balances itself: the module debits and refunds them through HostLedger.
      t.bigInteger('balance_cents').notNullable().defaultTo(0);
    });
  }
  if (!(await db.schema.hasTable('host_credit_log'))) {
    await db.schema.createTable('host_credit_log', (t) => {
      t.string('id', 26).primary();
      t.string('reseller_id', 26).notNullable().index();
      t.bigInteger('amount_cents').notNullable();
      t.string('kind', 16).notNullable();
      t.string('order_id', 26).nullable();
      t.string('note', 255).nullable();
      t.bigInteger('created_at').notNullable();
    });
  }
  if (!(await db.schema.hasTable('host_activity'))) {
    await db.schema.createTable('host_activity', (t) => {
      t.increments('id').primary();
      t.string('event', 32).notNullable();
      t.string('reseller_id', 26).notNullable();
      t.text('summary').notNullable();
    });
  }
}

// ---- the ports the host rebinds ----

/**
 * The host's customers are the resellers: the host decides who may call the API, with which key,
 * and whether an account is suspended.
 */
class HostResellerDirectory implements ResellerDirectory {
  constructor(private readonly db: Knex) {}

  async findForAuthentication(email: string): Promise<AuthenticatingReseller | undefined> {
    const row = await this.db('host_customers').where({ email }).first();
    if (!row) return undefined;
    return {
      reseller: {
        id: row.reseller_id,
        email: row.email,
        groupId: row.group_id,
        status: Number(row.suspended) ? 'suspended' : 'active',
        createdAt: new Date(0),
      },
      apiKey: row.api_key,
      allowedNetworks: [],
    };
  }
}

/**
 * The host's balances as the module's credit ledger. It runs on the connection the module hands
 * it: inside an order that is the order's transaction, so a debit commits or rolls back with it.
 */
class HostLedger implements LedgerRepository {
  constructor(private readonly db: Knex | Knex.Transaction) {}

  async openAccount(): Promise<void> {
    // The host opens the account when the customer signs up (host_customers.balance_cents).
  }

  async post(entry: LedgerEntry): Promise<boolean> {
    const moved = await this.db('host_customers')
      .where({ reseller_id: entry.resellerId })
      .andWhere('balance_cents', '>=', -entry.amount)
      .update({ balance_cents: this.db.raw('balance_cents + ?', [entry.amount]) });
    if (moved !== 1) return false;
    await this.db('host_credit_log').insert({
      id: entry.id,
      reseller_id: entry.resellerId,
      amount_cents: entry.amount,
      kind: entry.kind,
      order_id: entry.orderId,
      note: entry.note,
      created_at: entry.createdAt.getTime(),
    });
    return true;
  }

  async balance(resellerId: string): Promise<number> {
    const row = await this.db('host_customers').where({ reseller_id: resellerId }).first('balance_cents');
    return Number(row?.balance_cents ?? 0);
  }

  async totalBalance(): Promise<number> {
    return Number((await this.db('host_customers').sum({ total: 'balance_cents' }).first())?.total ?? 0);
  }

  async sumOfEntries(resellerId: string): Promise<number> {
    return Number(
      (await this.db('host_credit_log').where({ reseller_id: resellerId }).sum({ total: 'amount_cents' }).first())
        ?.total ?? 0,
    );
  }

  async entries(resellerId: string, limit: number): Promise<LedgerEntry[]> {
    const rows = await this.db('host_credit_log').where({ reseller_id: resellerId }).orderBy('id', 'desc').limit(limit);
    return rows.map((r: Record<string, unknown>) => ({
      id: String(r.id),
      resellerId: String(r.reseller_id),
      amount: Number(r.amount_cents),
      kind: r.kind as LedgerEntry['kind'],
      orderId: (r.order_id as string | null) ?? null,
      note: (r.note as string | null) ?? null,
      createdAt: new Date(Number(r.created_at)),
    }));
  }
}

// ---- the host application ----

export interface HostApp {
  readonly app: Koa;
  readonly reseller: ResellerModule;
  /** A new customer of the host, who is a reseller of the module. Returns the API key to show the customer. */
  signUp(email: string): Promise<{ email: string; apiKey: string }>;
  /** A card payment: credit in cents. */
  topUp(email: string, cents: number): Promise<void>;
  setSuspended(email: string, suspended: boolean): Promise<void>;
  /** The host's activity feed, fed by the module's events. */
  activity(): Promise<Array<{ event: string; summary: string }>>;
  close(): Promise<void>;
}

export interface HostAppOptions {
  /** The host's own connection; the module's tables live beside the host's. */
  readonly db: Knex;
  readonly masterKey: string;
  /** Settings of the module (README table), like `{ logLevel: 'silent' }`. */
  readonly settings?: Record<string, unknown>;
  readonly pluginsDir?: string;
}

export async function createHostApp(options: HostAppOptions): Promise<HostApp> {
  const { db } = options;
  await ensureHostSchema(db);
  const reseller = await createResellerModule({
    database: db,
    pluginsDir: options.pluginsDir,
    settings: { masterKey: options.masterKey, ...options.settings },
    // Before anything is resolved: the host's customers and balances replace the module's own.
    ports: {
      resellerDirectory: () => new HostResellerDirectory(db),
      ledgerFactory: () => (connection) => new HostLedger(connection as Knex | Knex.Transaction),
    },
  });
  await reseller.migrate();
  if (!(await reseller.services.resellers.listGroups()).some((g) => g.name === GROUP)) {
    await reseller.services.resellers.createGroup(GROUP);
    await reseller.services.catalogue.setTld({
      tld: '.com',
      group: GROUP,
      registrar: 'sandbox',
      prices: { register: { 1: 1200, 2: 2300 }, renew: { 1: 1300 }, transfer: { 1: 1100 } },
    });
  }

  // The activity feed: what the module did, in the host's words.
  const record = (event: keyof PlatformEvents, resellerId: string, summary: string) =>
    db('host_activity')
      .insert({ event, reseller_id: resellerId, summary })
      .then(() => undefined);
  reseller.on('order.placed', (e) =>
    record(
      'order.placed',
      e.resellerId,
      `${e.action} ${e.domain} for ${e.period} year(s): ${formatAmount(e.price)} reserved`,
    ),
  );
  reseller.on('order.completed', (e) =>
    record(
      'order.completed',
      e.resellerId,
      `${e.action} ${e.domain} done${e.expiryDate ? `, expires ${e.expiryDate}` : ''}`,
    ),
  );
  reseller.on('order.failed', (e) =>
    record(
      'order.failed',
      e.resellerId,
      `${e.action} ${e.domain} failed (${e.reason}); ${formatAmount(e.refunded)} refunded`,
    ),
  );
  reseller.on('domain.status_changed', (e) =>
    record('domain.status_changed', e.resellerId, `${e.domain}: ${e.from ?? 'new'} → ${e.to} (${e.cause})`),
  );
  reseller.on('credit.changed', (e) =>
    record('credit.changed', e.resellerId, `${e.kind} ${formatAmount(e.amount)}, balance ${formatAmount(e.balance)}`),
  );

  const host = {
    async signUp(email: string) {
      const group = await reseller.services.resellers.group(GROUP);
      const { reseller: created, apiKey } = await reseller.services.resellers.create(email, GROUP);
      await db('host_customers').insert({
        email: created.email,
        reseller_id: created.id,
        group_id: group.id,
        api_key: apiKey,
        suspended: false,
        balance_cents: 0,
      });
      return { email: created.email, apiKey };
    },
    async topUp(email: string, cents: number) {
      const customer = await db('host_customers').where({ email }).first();
      await reseller.services.credit.adjust(customer.reseller_id, cents, 'card payment');
    },
    async setSuspended(email: string, suspended: boolean) {
      await db('host_customers').where({ email }).update({ suspended });
    },
    async activity() {
      return (await db('host_activity').orderBy('id')).map((r: { event: string; summary: string }) => ({
        event: r.event,
        summary: r.summary,
      }));
    },
  };

  const app = new Koa();
  const routes = new Router();
  routes.get('/dashboard', (ctx) => {
    ctx.body = 'host dashboard';
  });
  routes.get('/activity', async (ctx) => {
    ctx.body = await host.activity();
  });
  app.use(reseller.middleware({ prefix: '/reseller-api' }));
  app.use(routes.routes());

  return {
    app,
    reseller,
    ...host,
    // The knex connection is the host's: the module leaves it open.
    close: () => reseller.close(),
  };
}
