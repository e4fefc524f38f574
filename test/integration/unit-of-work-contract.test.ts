import { ulid } from 'ulid';
import type { Knex } from 'knex';
import type { AnyPlatformEvent } from '../../src/core/common/events';
import type { UnitOfWork } from '../../src/core/common/unit-of-work';
import { postWithBalance } from '../../src/core/credit/ledger';
import type { NewDomain } from '../../src/core/domain/domain';
import { newEventId } from '../../src/core/events/outbox';
import type { Order } from '../../src/core/order/order';
import {
  type AttemptRecord,
  deliveryBody,
  type StoredEndpoint,
  type WebhookDelivery,
} from '../../src/core/webhooks/webhook';
import { connectDatabase, parseDatabaseUrl } from '../../src/infra/db/connect';
import { isUniqueViolation } from '../../src/infra/db/errors';
import { migrateLatest } from '../../src/infra/db/migrate';
import { KnexUnitOfWork } from '../../src/infra/repositories/knex-unit-of-work';
import { MemoryUnitOfWork } from '../../src/infra/repositories/memory/memory-unit-of-work';
import { openLedgers, openMemoryLedgers } from '../support/ledger-invariant';
import { pendingOrder } from '../support/orders';
import { createTestDatabase, TEST_ENGINE } from '../support/test-database';

/**
 * One contract, two implementations: the knex unit of work (on this run's engine, SQLite or
 * MariaDB with TEST_DB=mariadb) and its memory twin (src/infra/repositories/memory). Whatever a
 * rule test learns from the twin holds on the database only while the twin is no more lenient:
 * the same constraints refuse the same writes, a missing row answers the same, a lock is
 * something a transaction may take, money comes back as integers, and a transaction that throws
 * leaves nothing behind.
 */
interface Subject {
  readonly uow: UnitOfWork;
  close(): Promise<void>;
}

async function knexSubject(): Promise<Subject> {
  const db = await createTestDatabase();
  const knex: Knex = connectDatabase(parseDatabaseUrl(db.url), { poolMax: 4 });
  await migrateLatest(knex);
  openLedgers.add(knex);
  return {
    uow: new KnexUnitOfWork(knex),
    async close() {
      openLedgers.delete(knex);
      await knex.destroy();
      await db.drop();
    },
  };
}

async function memorySubject(): Promise<Subject> {
  const uow = new MemoryUnitOfWork();
  openMemoryLedgers.add(uow);
  return { uow, close: async () => void openMemoryLedgers.delete(uow) };
}

const AT = new Date('2026-11-21T10:30:00Z');

/**
 * What a promise was rejected with (fails the test when it resolved). Asserted by its code, not
 * with `rejects.toThrow()`: better-sqlite3's errors are made in the realm of the first test file
 * that loaded the driver, so in a later file of the same jest process they are not `Error`s.
 */
async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

describe.each([
  [`knex (${TEST_ENGINE})`, knexSubject],
  ['memory twin', memorySubject],
])('the unit of work contract: %s', (name, open) => {
  let s: Subject;
  let groupId: string;
  let resellerId: string;
  beforeAll(async () => {
    s = await open();
    groupId = ulid();
    await s.uow.run(async ({ groups }) => groups.insert({ id: groupId, name: 'default', defaultContact: null }));
  });
  afterAll(async () => {
    await s.close();
  });
  beforeEach(async () => {
    resellerId = await newReseller();
  });

  async function newReseller(email = `r-${ulid().toLowerCase()}@example.com`): Promise<string> {
    const id = ulid();
    await s.uow.run(async ({ resellers, ledger }) => {
      await resellers.insert({
        id,
        email,
        groupId,
        status: 'active',
        sealedApiKey: 'sealed',
        allowedNetworks: [],
        createdAt: AT,
      });
      await ledger.openAccount(id);
    });
    return id;
  }

  const credit = (amount: number) =>
    s.uow.run(({ ledger }) =>
      postWithBalance(ledger, {
        id: ulid(),
        resellerId,
        amount,
        kind: 'top_up',
        orderId: null,
        note: null,
        createdAt: AT,
      }),
    );

  const domain = (name: string, overrides: Partial<NewDomain> = {}): NewDomain => ({
    id: ulid(),
    name,
    unicodeName: name,
    tld: '.com',
    resellerId,
    registrar: 'fake',
    status: 'Pending Registration',
    expiryDate: null,
    createdAt: AT,
    ...overrides,
  });

  const order = (name: string, overrides: Partial<Order> = {}): Order =>
    pendingOrder({ resellerId, domain: name, ...overrides }, AT);

  /** An order with its debit, as placement writes them (the ledger invariant holds after each test). */
  const placeOrder = (o: Order) =>
    s.uow.run(async ({ orders, ledger }) => {
      await ledger.post({
        id: ulid(),
        resellerId: o.resellerId,
        amount: -o.price,
        kind: 'order_debit',
        orderId: o.id,
        note: null,
        createdAt: AT,
      });
      if (!(await orders.insert(o))) throw new Error(`${o.domain} has an open order`);
    });

  describe('transactions', () => {
    it('keeps nothing of a transaction that throws, and keeps all of one that returns', async () => {
      const name = `rollback-${ulid().toLowerCase()}.com`;
      const failure = new Error('the work failed');
      await expect(
        s.uow.run(async ({ domains, ledger }) => {
          await domains.insert(domain(name));
          await ledger.post({
            id: ulid(),
            resellerId,
            amount: 500,
            kind: 'top_up',
            orderId: null,
            note: null,
            createdAt: AT,
          });
          throw failure;
        }),
      ).rejects.toBe(failure);
      expect(await s.uow.read.domains.findByName(name)).toBeUndefined();
      expect(await s.uow.read.ledger.balance(resellerId)).toBe(0);
      await s.uow.run(async ({ domains }) => domains.insert(domain(name)));
      expect(await s.uow.read.domains.findByName(name)).toMatchObject({ name, resellerId });
    });

    it('lets a transaction read its own writes before they commit', async () => {
      const name = `own-${ulid().toLowerCase()}.com`;
      const seen = await s.uow.run(async ({ domains }) => {
        await domains.insert(domain(name));
        return domains.findByName(name);
      });
      expect(seen).toMatchObject({ name });
    });
  });

  describe('unique keys', () => {
    it('refuses a second domain of the same name, as a unique violation; insertForOrder answers false instead', async () => {
      const name = `taken-${ulid().toLowerCase()}.com`;
      await s.uow.run(async ({ domains }) => domains.insert(domain(name)));
      const error = await rejection(s.uow.run(async ({ domains }) => domains.insert(domain(name))));
      expect(isUniqueViolation(error)).toBe(true);
      await expect(s.uow.run(async ({ domains }) => domains.insertForOrder(domain(name)))).resolves.toBe(false);
    });

    it('refuses a second reseller with the same email and a second group with the same name', async () => {
      const email = `same-${ulid().toLowerCase()}@example.com`;
      await newReseller(email);
      expect(isUniqueViolation(await rejection(newReseller(email)))).toBe(true);
      const again = s.uow.run(async ({ groups }) =>
        groups.insert({ id: ulid(), name: 'default', defaultContact: null }),
      );
      expect(isUniqueViolation(await rejection(again))).toBe(true);
    });

    it('opens one credit account per reseller', async () => {
      const error = await rejection(s.uow.run(async ({ ledger }) => ledger.openAccount(resellerId)));
      expect(isUniqueViolation(error)).toBe(true);
    });

    it('holds one open order per domain: a second pending order answers false until the first is settled', async () => {
      const name = `open-${ulid().toLowerCase()}.com`;
      await credit(5_000);
      const first = order(name);
      await placeOrder(first);
      await expect(placeOrder(order(name))).rejects.toThrow(/has an open order/);
      // The order's insert answers false inside the transaction; the debit beside it is the caller's to roll back.
      await expect(s.uow.run(async ({ orders }) => orders.insert(order(name)))).resolves.toBe(false);
      await s.uow.run(async ({ orders }) => orders.settle(first.id, 'completed', { note: 'done', at: AT }));
      await placeOrder(order(name));
      expect(await s.uow.read.orders.findOpen(name)).toMatchObject({ status: 'pending' });
    });

    it('posts one debit per order: a second is a unique violation', async () => {
      await credit(5_000);
      const o = order(`debit-${ulid().toLowerCase()}.com`);
      await placeOrder(o);
      const twice = s.uow.run(async ({ ledger }) =>
        ledger.post({
          id: ulid(),
          resellerId,
          amount: -o.price,
          kind: 'order_debit',
          orderId: o.id,
          note: null,
          createdAt: AT,
        }),
      );
      expect(isUniqueViolation(await rejection(twice))).toBe(true);
      expect(await s.uow.read.ledger.balance(resellerId)).toBe(4_000);
    });

    it('takes an Idempotency-Key once per reseller: a second insert answers false, another reseller may use it', async () => {
      const record = (who: string) => ({
        resellerId: who,
        key: 'k-1',
        fingerprint: 'f',
        state: 'in_flight' as const,
        orderId: null,
        answer: null,
        createdAt: AT,
        expiresAt: new Date(AT.getTime() + 1000),
      });
      await expect(s.uow.run(async ({ idempotency }) => idempotency.insert(record(resellerId)))).resolves.toBe(true);
      await expect(s.uow.run(async ({ idempotency }) => idempotency.insert(record(resellerId)))).resolves.toBe(false);
      const other = await newReseller();
      await expect(s.uow.run(async ({ idempotency }) => idempotency.insert(record(other)))).resolves.toBe(true);
      // Not yet expired: kept.
      await s.uow.run(async ({ idempotency }) => idempotency.deleteExpired(resellerId, 'k-1', AT));
      expect(await s.uow.read.idempotency.find(resellerId, 'k-1')).toMatchObject({ state: 'in_flight' });
      await s.uow.run(async ({ idempotency }) =>
        idempotency.deleteExpired(resellerId, 'k-1', new Date(AT.getTime() + 1001)),
      );
      expect(await s.uow.read.idempotency.find(resellerId, 'k-1')).toBeUndefined();
    });

    it('tells Idempotency-Keys apart by case: they are opaque client strings', async () => {
      const record = (key: string, fingerprint: string) => ({
        resellerId,
        key,
        fingerprint,
        state: 'in_flight' as const,
        orderId: null,
        answer: null,
        createdAt: AT,
        expiresAt: new Date(AT.getTime() + 1000),
      });
      await expect(s.uow.run(async ({ idempotency }) => idempotency.insert(record('Order-1', 'f1')))).resolves.toBe(
        true,
      );
      await expect(s.uow.run(async ({ idempotency }) => idempotency.insert(record('order-1', 'f2')))).resolves.toBe(
        true,
      );
      expect(await s.uow.read.idempotency.find(resellerId, 'Order-1')).toMatchObject({
        key: 'Order-1',
        fingerprint: 'f1',
      });
      expect(await s.uow.read.idempotency.find(resellerId, 'order-1')).toMatchObject({
        key: 'order-1',
        fingerprint: 'f2',
      });
      expect(await s.uow.read.idempotency.find(resellerId, 'ORDER-1')).toBeUndefined();
    });

    it('adds a TLD once: insertTld answers false for one in the catalogue', async () => {
      const tld = {
        tld: `.t${ulid().toLowerCase().slice(-8)}`,
        registrar: 'fake',
        minLength: 1,
        maxLength: 63,
        graceDays: 0,
        redemptionDays: 0,
      };
      await expect(s.uow.run(async ({ catalogue }) => catalogue.insertTld(tld))).resolves.toBe(true);
      await expect(s.uow.run(async ({ catalogue }) => catalogue.insertTld(tld))).resolves.toBe(false);
    });
  });

  describe('foreign keys', () => {
    /** A foreign key violation, as SQLite, MariaDB and the twin report it. */
    const isForeignKeyViolation = (error: unknown) =>
      /^(SQLITE_CONSTRAINT_FOREIGNKEY|ER_NO_REFERENCED_ROW(_2)?)$/.test(String((error as { code?: unknown }).code));

    it('refuses a domain, an order or an account of a reseller that does not exist', async () => {
      const nobody = ulid();
      const writes = [
        () => s.uow.run(async ({ domains }) => domains.insert(domain('ghost.com', { resellerId: nobody }))),
        () => s.uow.run(async ({ orders }) => orders.insert(order('ghost.com', { resellerId: nobody }))),
        () => s.uow.run(async ({ ledger }) => ledger.openAccount(nobody)),
      ];
      for (const write of writes) expect(isForeignKeyViolation(await rejection(write()))).toBe(true);
      expect(await s.uow.read.domains.findByName('ghost.com')).toBeUndefined();
    });

    it('refuses a reseller in a group that does not exist', async () => {
      const insert = s.uow.run(async ({ resellers }) =>
        resellers.insert({
          id: ulid(),
          email: `nogroup-${ulid().toLowerCase()}@example.com`,
          groupId: ulid(),
          status: 'active',
          sealedApiKey: 'sealed',
          allowedNetworks: [],
          createdAt: AT,
        }),
      );
      expect(isForeignKeyViolation(await rejection(insert))).toBe(true);
    });
  });

  describe('rows not found', () => {
    it('answers undefined, false or zero for what is not there, and changes nothing', async () => {
      const missing = ulid();
      const { read } = s.uow;
      expect(await read.resellers.findById(missing)).toBeUndefined();
      expect(await read.orders.findById(missing)).toBeUndefined();
      expect(await read.domains.findByName('nowhere.com')).toBeUndefined();
      expect(await read.catalogue.findTld('.nowhere')).toBeUndefined();
      expect(await read.idempotency.find(missing, 'k')).toBeUndefined();
      expect(await read.ledger.balance(missing)).toBe(0);
      await s.uow.run(async (repos) => {
        expect(await repos.resellers.lockById(missing)).toBeUndefined();
        expect(await repos.catalogue.lockTlds(['.nowhere'])).toEqual([]);
        expect(await repos.orders.settle(missing, 'failed', { note: 'x', at: AT })).toBe(false);
        expect(await repos.orders.claim(missing, 'me', AT, AT)).toBe(false);
        expect(await repos.domains.update(missing, { status: 'Active' }, AT)).toBe(false);
        expect(
          await repos.domains.transitionForOrder(missing, ['Pending Registration'], { status: 'Active', at: AT }),
        ).toBe(false);
        expect(await repos.domains.deleteForFailedOrder(missing, 'Pending Registration')).toBe(false);
      });
    });
  });

  describe('row locks', () => {
    it('lets a transaction lock rows and then change them (a no-op on SQLite and in the twin)', async () => {
      const tld = `.l${ulid().toLowerCase().slice(-8)}`;
      await s.uow.run(async ({ catalogue }) =>
        catalogue.upsertTld({ tld, registrar: 'fake', minLength: 1, maxLength: 63, graceDays: 0, redemptionDays: 0 }),
      );
      await s.uow.run(async ({ resellers, catalogue }) => {
        expect(await resellers.lockById(resellerId)).toMatchObject({ id: resellerId, status: 'active' });
        expect(await catalogue.lockTlds([tld, tld])).toEqual([expect.objectContaining({ tld, registrar: 'fake' })]);
        await resellers.setStatus(resellerId, 'suspended');
        await catalogue.upsertTld({
          tld,
          registrar: 'other',
          minLength: 1,
          maxLength: 63,
          graceDays: 0,
          redemptionDays: 0,
        });
      });
      expect(await s.uow.read.resellers.findById(resellerId)).toMatchObject({ status: 'suspended' });
      expect(await s.uow.read.catalogue.findTld(tld)).toMatchObject({ registrar: 'other' });
    });
  });

  describe('money', () => {
    it('moves a balance only by a conditional update: a debit below zero writes nothing', async () => {
      expect(await credit(1_000)).not.toBeNull();
      expect(await credit(-1_001)).toBeNull();
      expect(await s.uow.read.ledger.balance(resellerId)).toBe(1_000);
      expect(await s.uow.read.ledger.entries(resellerId, 10)).toHaveLength(1);
    });

    it('answers amounts as integer numbers, large ones exactly', async () => {
      const large = 2 ** 40 + 1;
      await credit(large);
      const balance = await s.uow.read.ledger.balance(resellerId);
      expect(balance).toBe(large);
      expect(typeof (await s.uow.read.ledger.totalBalance())).toBe('number');
      const [entry] = await s.uow.read.ledger.entries(resellerId, 1);
      expect(entry.amount).toBe(large);
      await s.uow.run(async ({ catalogue }) => catalogue.setAddonPrices(groupId, new Map([['idprotection', 2 ** 35]])));
      expect((await s.uow.read.catalogue.addonPrices(groupId)).get('idprotection')).toBe(2 ** 35);
    });
  });

  describe('conditional order updates', () => {
    it('settles an order once, only from pending, and leases it to one claimer at a time', async () => {
      await credit(5_000);
      const o = order(`lease-${ulid().toLowerCase()}.com`);
      await placeOrder(o);
      const until = new Date(AT.getTime() + 60_000);
      await expect(s.uow.run(async ({ orders }) => orders.claim(o.id, 'a', AT, until))).resolves.toBe(true);
      await expect(s.uow.run(async ({ orders }) => orders.claim(o.id, 'b', AT, until))).resolves.toBe(false);
      await expect(
        s.uow.run(async ({ orders }) => orders.claim(o.id, 'b', until, new Date(until.getTime() + 1))),
      ).resolves.toBe(true);
      expect(await s.uow.read.orders.findById(o.id)).toMatchObject({ leaseOwner: 'b' });
      await expect(
        s.uow.run(async ({ orders }) => orders.settle(o.id, 'completed', { note: 'ok', at: AT })),
      ).resolves.toBe(true);
      await expect(
        s.uow.run(async ({ orders }) => orders.settle(o.id, 'failed', { note: 'no', at: AT })),
      ).resolves.toBe(false);
      expect(await s.uow.read.orders.findById(o.id)).toMatchObject({
        status: 'completed',
        leaseOwner: null,
        note: 'ok',
      });
    });

    it('changes a domain only from the expected status (and owner)', async () => {
      const d = domain(`cond-${ulid().toLowerCase()}.com`);
      await s.uow.run(async ({ domains }) => domains.insert(d));
      const other = ulid();
      await s.uow.run(async (repos) => {
        expect(await repos.domains.update(d.id, { status: 'Active' }, AT, { ifStatus: 'Active' })).toBe(false);
        expect(
          await repos.domains.transitionForOrder(d.id, ['Pending Registration'], { status: 'Active', at: AT }, other),
        ).toBe(false);
        expect(
          await repos.domains.transitionForOrder(
            d.id,
            ['Pending Registration'],
            { status: 'Active', expiryDate: '2027-11-21', at: AT },
            resellerId,
          ),
        ).toBe(true);
        expect(await repos.domains.deleteForFailedOrder(d.id, 'Pending Registration')).toBe(false);
      });
      expect(await s.uow.read.domains.findByName(d.name)).toMatchObject({ status: 'Active', expiryDate: '2027-11-21' });
    });
  });

  describe('webhooks', () => {
    const later = (ms: number) => new Date(AT.getTime() + ms);

    const endpoint = (overrides: Partial<StoredEndpoint> = {}): StoredEndpoint => ({
      id: `whe_${ulid()}`,
      resellerId,
      url: 'https://hooks.example.com/in',
      eventTypes: ['credit.low'],
      status: 'enabled',
      disabledReason: null,
      failingSince: null,
      createdAt: AT,
      sealedSecret: 'sealed-1',
      previousSealedSecret: null,
      previousSecretUntil: null,
      ...overrides,
    });

    const event = (): AnyPlatformEvent => ({
      id: newEventId(),
      type: 'credit.low',
      version: 1,
      timestamp: AT.toISOString(),
      resellerId,
      data: { resellerId, balance: 5, threshold: 10 },
    });

    const delivery = (
      eventId: string,
      endpointId: string,
      overrides: Partial<WebhookDelivery> = {},
    ): WebhookDelivery => ({
      id: ulid(),
      eventId,
      endpointId,
      eventType: 'credit.low',
      status: 'pending',
      attempts: 0,
      nextAttemptAt: AT,
      lastStatus: null,
      lastError: null,
      lastAttemptAt: null,
      deliveredAt: null,
      createdAt: AT,
      ...overrides,
    });

    /** An endpoint with one pending delivery of a stored event, due at AT. */
    async function pendingDelivery(e: StoredEndpoint = endpoint()) {
      const ev = event();
      const d = delivery(ev.id, e.id);
      await s.uow.run(async ({ webhooks, events }) => {
        if (!(await webhooks.findEndpoint(e.id))) await webhooks.insertEndpoint(e);
        await events.insert([ev]);
        await webhooks.insertDeliveries([d]);
      });
      return { endpoint: e, event: ev, delivery: d };
    }

    const claim = (token: string, now = AT, excludeEndpoints: string[] = []) =>
      s.uow.run(async ({ webhooks }) =>
        webhooks.claimDue({ now, leaseUntil: later(60_000), token, limit: 1000, excludeEndpoints }),
      );
    const record = (id: string, token: string, r: AttemptRecord) =>
      s.uow.run(async ({ webhooks }) => webhooks.recordAttempt(id, token, r));

    it("stores an endpoint as given, once; lists a reseller's, the operator's or every one in creation order; each change to routing raises its version", async () => {
      const version = () => s.uow.read.events.routingVersion();
      const before = await version();
      const second = endpoint({ createdAt: later(1), eventTypes: null });
      const first = endpoint({ previousSealedSecret: 'sealed-0', previousSecretUntil: later(5) });
      const operators = endpoint({ resellerId: null, createdAt: later(2) });
      for (const e of [second, first, operators]) await s.uow.run(async ({ webhooks }) => webhooks.insertEndpoint(e));
      expect(await version()).toBe(before + 3);
      expect(await s.uow.read.webhooks.findEndpoint(first.id)).toEqual(first);
      expect(await s.uow.read.webhooks.findEndpoint(`whe_${ulid()}`)).toBeUndefined();
      const again = s.uow.run(async ({ webhooks }) =>
        webhooks.insertEndpoint({ ...first, url: 'https://other.example.com/' }),
      );
      expect(isUniqueViolation(await rejection(again))).toBe(true);
      expect(await version()).toBe(before + 3);

      expect((await s.uow.read.webhooks.listEndpoints(resellerId)).map((e) => e.id)).toEqual([first.id, second.id]);
      expect((await s.uow.read.webhooks.listEndpoints(null)).map((e) => e.id)).toContain(operators.id);
      expect((await s.uow.read.webhooks.listEndpoints(null)).every((e) => e.resellerId === null)).toBe(true);
      const all = (await s.uow.read.webhooks.listEndpoints()).map((e) => e.id);
      expect(all).toEqual(expect.arrayContaining([first.id, second.id, operators.id]));

      // A rotation too: a dispatch signs what it hands its worker with its copy of the endpoint.
      const beforeRotation = await version();
      await s.uow.run(async ({ webhooks }) =>
        webhooks.rotateSecret(first.id, 'sealed-2', { sealed: 'sealed-1', until: later(9) }),
      );
      expect(await version()).toBe(beforeRotation + 1);
      expect(await s.uow.read.webhooks.findEndpoint(first.id)).toEqual({
        ...first,
        sealedSecret: 'sealed-2',
        previousSealedSecret: 'sealed-1',
        previousSecretUntil: later(9),
      });
    });

    it('disables only an enabled endpoint, its pending deliveries dead; enables one afresh; starts the failing clock once per run', async () => {
      const { endpoint: e, delivery: d } = await pendingDelivery();
      const version = await s.uow.read.events.routingVersion();
      await s.uow.run(async ({ webhooks }) => webhooks.setFailingSince(e.id, later(1)));
      await s.uow.run(async ({ webhooks }) => webhooks.setFailingSince(e.id, later(2)));
      expect(await s.uow.read.webhooks.findEndpoint(e.id)).toMatchObject({ failingSince: later(1) });

      const reason = 'x'.repeat(300);
      await expect(s.uow.run(async ({ webhooks }) => webhooks.disable(e.id, reason))).resolves.toBe(true);
      await expect(s.uow.run(async ({ webhooks }) => webhooks.disable(e.id, 'again'))).resolves.toBe(false);
      expect(await s.uow.read.events.routingVersion()).toBe(version + 1);
      expect(await s.uow.read.webhooks.findEndpoint(e.id)).toMatchObject({
        status: 'disabled',
        disabledReason: reason.slice(0, 255),
      });
      expect(await s.uow.read.webhooks.findDelivery(d.id)).toEqual({
        ...d,
        status: 'dead',
        lastError: `endpoint disabled: ${reason}`.slice(0, 500),
      });
      expect((await s.uow.read.webhooks.enabledEndpoints()).map((x) => x.id)).not.toContain(e.id);

      await s.uow.run(async ({ webhooks }) => webhooks.enable(e.id));
      expect(await s.uow.read.events.routingVersion()).toBe(version + 2);
      expect(await s.uow.read.webhooks.findEndpoint(e.id)).toMatchObject({
        status: 'enabled',
        disabledReason: null,
        failingSince: null,
      });
      expect((await s.uow.read.webhooks.enabledEndpoints()).map((x) => x.id)).toContain(e.id);
      await s.uow.run(async ({ webhooks }) => webhooks.setFailingSince(e.id, later(3)));
      await s.uow.run(async ({ webhooks }) => webhooks.setFailingSince(e.id, null));
      expect(await s.uow.read.webhooks.findEndpoint(e.id)).toMatchObject({ failingSince: null });
      // A dead delivery stays dead until it is replayed.
      expect(await s.uow.read.webhooks.findDelivery(d.id)).toMatchObject({ status: 'dead' });
    });

    it('refuses a URL longer than its column where MariaDB does, and only the twin is stricter than SQLite', async () => {
      const long = endpoint({ url: `https://hooks.example.com/${'p'.repeat(2048)}` });
      const outcome = await s.uow
        .run(async ({ webhooks }) => webhooks.insertEndpoint(long))
        .then(
          () => 'stored',
          () => 'refused',
        );
      expect(outcome).toBe(name === 'knex (sqlite)' ? 'stored' : 'refused');
    });

    it('takes one delivery per (event, endpoint): another for the pair leaves the first as it is; unwritten columns start empty', async () => {
      const { event: ev, endpoint: e, delivery: d } = await pendingDelivery();
      await s.uow.run(async ({ webhooks }) =>
        webhooks.insertDeliveries([delivery(ev.id, e.id, { status: 'dead', attempts: 3, nextAttemptAt: later(9) })]),
      );
      expect(await s.uow.read.webhooks.listDeliveries({ endpointId: e.id })).toEqual([d]);
      await s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([]));
      const given = delivery(event().id, e.id, {
        lastStatus: 500,
        lastError: 'no',
        lastAttemptAt: AT,
        deliveredAt: AT,
      });
      await s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([given]));
      expect(await s.uow.read.webhooks.findDelivery(given.id)).toEqual({
        ...given,
        lastStatus: null,
        lastError: null,
        lastAttemptAt: null,
        deliveredAt: null,
      });
      // A delivery id already taken, for another pair: SQLite refuses it, MariaDB's INSERT IGNORE drops
      // it; the twin refuses it. Never does it replace the first.
      const reused = s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([{ ...d, eventId: event().id }]));
      const outcome = await reused.then(
        () => 'ignored',
        (error: unknown) => (isUniqueViolation(error) ? 'refused' : error),
      );
      expect(outcome).toBe(name === `knex (mariadb)` ? 'ignored' : 'refused');
      expect(await s.uow.read.webhooks.findDelivery(d.id)).toEqual(d);
    });

    it('claims a due pending delivery of an enabled endpoint for one claimer at a time, with its endpoint and the event as sent', async () => {
      const { endpoint: e, event: ev, delivery: d } = await pendingDelivery();
      const notYet = delivery(event().id, e.id, { nextAttemptAt: later(1) });
      await s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([notYet]));

      expect(await claim('t-x', AT, [e.id])).not.toContain(d.id);
      const first = await claim('t-1');
      expect(first).toContain(d.id);
      expect(first).not.toContain(notYet.id);
      expect(await claim('t-2')).not.toContain(d.id);
      expect(await s.uow.read.webhooks.claimed([d.id], 't-2')).toEqual([]);
      const [claimed] = await s.uow.read.webhooks.claimed([d.id], 't-1');
      expect(claimed).toEqual({
        id: d.id,
        claimToken: 't-1',
        attempts: 0,
        endpoint: e,
        eventId: ev.id,
        body: JSON.stringify(ev),
        createdAt: AT,
      });

      // Given back: another claimer takes it; a lapsed claim is free again.
      await s.uow.run(async ({ webhooks }) => webhooks.releaseClaims([d.id], 't-2'));
      expect(await claim('t-3')).not.toContain(d.id);
      await s.uow.run(async ({ webhooks }) => webhooks.releaseClaims([d.id], 't-1'));
      expect(await claim('t-3')).toContain(d.id);
      expect(await claim('t-4', later(60_001))).toEqual(expect.arrayContaining([d.id, notYet.id]));

      // Not for a disabled endpoint.
      await s.uow.run(async ({ webhooks }) => webhooks.releaseClaims([d.id, notYet.id], 't-4'));
      await s.uow.run(async ({ webhooks }) => webhooks.disable(e.id, 'off'));
      await s.uow.run(async ({ webhooks }) => webhooks.replay(d.id, AT));
      expect(await claim('t-5', later(1))).not.toContain(d.id);
    });

    it('keeps a delivery inserted claimed for its claimer until the lease runs out, records its attempt only under that claim, and reads it back as the dispatch built it', async () => {
      const e = endpoint();
      const ev = event();
      const fresh = { ...delivery(ev.id, e.id), claim: { token: 't-fresh', until: later(60_000) } };
      const lapsed = { ...delivery(event().id, e.id), claim: { token: 't-gone', until: later(10) } };
      await s.uow.run(async ({ webhooks, events }) => {
        await webhooks.insertEndpoint(e);
        await events.insert([ev]);
        await webhooks.insertDeliveries([fresh, lapsed]);
      });
      const round = await claim('t-round', later(1));
      expect(round).not.toContain(fresh.id);
      expect(round).not.toContain(lapsed.id);
      const body = deliveryBody(
        { id: ev.id, type: ev.type, version: ev.version, occurredAt: Date.parse(ev.timestamp) },
        ev.resellerId,
        JSON.stringify(ev.data),
      );
      expect(await s.uow.read.webhooks.claimed([fresh.id], 't-fresh')).toEqual([
        { id: fresh.id, claimToken: 't-fresh', attempts: 0, endpoint: e, eventId: ev.id, body, createdAt: AT },
      ]);
      const delivered: AttemptRecord = { kind: 'delivered', at: later(2), status: 204 };
      expect(await record(fresh.id, 't-round', delivered)).toBe(false);
      expect(await record(fresh.id, 't-fresh', delivered)).toBe(true);
      // A claim whose process died runs out like a round's.
      expect(await claim('t-late', later(11))).toContain(lapsed.id);
    });

    it('records an attempt only under its claim: delivered, retried or dead; a dead one is replayed afresh', async () => {
      const { endpoint: e, delivery: d } = await pendingDelivery();
      const retried = delivery(event().id, e.id);
      const dying = delivery(event().id, e.id);
      await s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([retried, dying]));
      await claim('t-1');

      const error = 'e'.repeat(600);
      expect(await record(d.id, 't-other', { kind: 'delivered', at: later(5), status: 200 })).toBe(false);
      expect(await record(d.id, 't-1', { kind: 'delivered', at: later(5), status: 204 })).toBe(true);
      expect(await record(d.id, 't-1', { kind: 'delivered', at: later(6), status: 200 })).toBe(false);
      expect(
        await record(retried.id, 't-1', { kind: 'retry', at: later(5), nextAttemptAt: later(65), status: 503, error }),
      ).toBe(true);
      expect(await record(dying.id, 't-1', { kind: 'dead', at: later(5), status: null, error: 'refused' })).toBe(true);

      expect(await s.uow.read.webhooks.findDelivery(d.id)).toEqual({
        ...d,
        status: 'delivered',
        attempts: 1,
        lastStatus: 204,
        lastAttemptAt: later(5),
        deliveredAt: later(5),
      });
      expect(await s.uow.read.webhooks.findDelivery(retried.id)).toEqual({
        ...retried,
        attempts: 1,
        nextAttemptAt: later(65),
        lastStatus: 503,
        lastError: error.slice(0, 500),
        lastAttemptAt: later(5),
      });
      expect(await s.uow.read.webhooks.findDelivery(dying.id)).toMatchObject({ status: 'dead', lastError: 'refused' });
      // The claim ended with the attempt: the retry is claimable when due, by anyone.
      expect(await claim('t-2', later(65))).toEqual([retried.id]);

      await expect(s.uow.run(async ({ webhooks }) => webhooks.replay(retried.id, later(70)))).resolves.toBe(false);
      await expect(s.uow.run(async ({ webhooks }) => webhooks.replay(dying.id, later(70)))).resolves.toBe(true);
      expect(await s.uow.read.webhooks.findDelivery(dying.id)).toMatchObject({
        status: 'pending',
        attempts: 0,
        nextAttemptAt: later(70),
        lastError: 'refused',
      });
    });

    it('records delivered attempts together, each only under its claim, at the time the last of a status finished', async () => {
      const { endpoint: e, delivery: a } = await pendingDelivery();
      const b = delivery(event().id, e.id);
      const c = delivery(event().id, e.id);
      await s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([b, c]));
      await claim('t-1');
      await s.uow.run(async ({ webhooks }) => webhooks.releaseClaims([c.id], 't-1'));
      const recorded = await s.uow.run(async ({ webhooks }) =>
        webhooks.recordDelivered([
          { id: a.id, token: 't-1', record: { kind: 'delivered', at: later(3), status: 200 } },
          { id: b.id, token: 't-1', record: { kind: 'delivered', at: later(7), status: 200 } },
          { id: c.id, token: 't-1', record: { kind: 'delivered', at: later(4), status: 202 } },
        ]),
      );
      expect(recorded).toBe(2);
      for (const id of [a.id, b.id])
        expect(await s.uow.read.webhooks.findDelivery(id)).toMatchObject({
          status: 'delivered',
          attempts: 1,
          lastStatus: 200,
          deliveredAt: later(7),
          lastAttemptAt: later(7),
        });
      expect(await s.uow.read.webhooks.findDelivery(c.id)).toMatchObject({ status: 'pending', attempts: 0 });
      await expect(s.uow.run(async ({ webhooks }) => webhooks.recordDelivered([]))).resolves.toBe(0);
    });

    it("lists deliveries newest first, by endpoint, status or the endpoint's reseller, up to a limit", async () => {
      const { endpoint: e, delivery: oldest } = await pendingDelivery();
      const newer = delivery(event().id, e.id, { createdAt: later(1) });
      const newest = delivery(event().id, e.id, { createdAt: later(2) });
      await s.uow.run(async ({ webhooks }) => webhooks.insertDeliveries([newest, newer]));
      const { delivery: elsewhere } = await pendingDelivery(endpoint({ resellerId: null }));
      const ids = async (filter: Parameters<UnitOfWork['read']['webhooks']['listDeliveries']>[0]) =>
        (await s.uow.read.webhooks.listDeliveries(filter)).map((d) => d.id);

      expect(await ids({ endpointId: e.id })).toEqual([newest.id, newer.id, oldest.id]);
      expect(await ids({ endpointId: e.id, limit: 2 })).toEqual([newest.id, newer.id]);
      expect(await ids({ resellerId })).toEqual([newest.id, newer.id, oldest.id]);
      expect(await ids({})).toContain(elsewhere.id);
      await s.uow.run(async ({ webhooks }) => webhooks.disable(e.id, 'off'));
      expect(await ids({ endpointId: e.id, status: 'pending' })).toEqual([]);
      expect(await ids({ resellerId, status: 'dead' })).toEqual([newest.id, newer.id, oldest.id]);
    });

    it('purges delivered deliveries by age; keeps an event while one of its deliveries is undelivered, and removes its delivered ones with it', async () => {
      const e = endpoint();
      const { event: delivered, delivery: d1 } = await pendingDelivery(e);
      const { event: waiting, delivery: d2 } = await pendingDelivery(e);
      await claim('t-1');
      await record(d1.id, 't-1', { kind: 'delivered', at: later(10), status: 200 });
      await s.uow.run(async ({ webhooks }) => webhooks.releaseClaims([d2.id], 't-1'));
      await s.uow.run(async ({ events }) => events.markDispatched([delivered.id, waiting.id], later(1)));

      const purged = await s.uow.run(async ({ events }) => events.purge(later(2), 1000));
      expect(purged).toBeGreaterThanOrEqual(1);
      expect(await s.uow.read.events.find(delivered.id)).toBeUndefined();
      expect(await s.uow.read.webhooks.findDelivery(d1.id)).toBeUndefined();
      expect(await s.uow.read.events.find(waiting.id)).toBeDefined();
      expect(await s.uow.read.webhooks.findDelivery(d2.id)).toMatchObject({ status: 'pending' });

      const { delivery: d3 } = await pendingDelivery(e);
      await claim('t-2');
      const at = later(3_600_000);
      await record(d3.id, 't-2', { kind: 'delivered', at, status: 200 });
      await s.uow.run(async ({ webhooks }) => webhooks.purgeDelivered(at, 1000));
      expect(await s.uow.read.webhooks.findDelivery(d3.id)).toBeDefined();
      await expect(
        s.uow.run(async ({ webhooks }) => webhooks.purgeDelivered(new Date(at.getTime() + 1), 1000)),
      ).resolves.toBeGreaterThanOrEqual(1);
      expect(await s.uow.read.webhooks.findDelivery(d3.id)).toBeUndefined();
      expect(await s.uow.read.webhooks.findDelivery(d2.id)).toBeDefined();
    });

    it('removes an endpoint with its deliveries, once', async () => {
      const { endpoint: e, delivery: d } = await pendingDelivery();
      const version = await s.uow.read.events.routingVersion();
      await expect(s.uow.run(async ({ webhooks }) => webhooks.deleteEndpoint(e.id))).resolves.toBe(true);
      await expect(s.uow.run(async ({ webhooks }) => webhooks.deleteEndpoint(e.id))).resolves.toBe(false);
      expect(await s.uow.read.events.routingVersion()).toBe(version + 1);
      expect(await s.uow.read.webhooks.findEndpoint(e.id)).toBeUndefined();
      expect(await s.uow.read.webhooks.findDelivery(d.id)).toBeUndefined();
    });
  });
});
