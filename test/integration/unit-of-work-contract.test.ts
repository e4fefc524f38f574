import { ulid } from 'ulid';
import type { Knex } from 'knex';
import type { UnitOfWork } from '../../src/core/common/unit-of-work';
import { postWithBalance } from '../../src/core/credit/ledger';
import type { NewDomain } from '../../src/core/domain/domain';
import type { Order } from '../../src/core/order/order';
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
])('the unit of work contract: %s', (_name, open) => {
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
});
