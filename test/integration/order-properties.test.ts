import fc from 'fast-check';
import type { OrderingReseller } from '../../src/core/order/order-commands';
import type { DomainError } from '../../src/core/common/errors';
import type { FakeBehaviour } from '../support/scripted-registrar';
import { ledgerProblems } from '../support/ledger-invariant';
import { AFTER_LEASE_MS, registration, startOrderBench, type OrderBench } from '../support/order-bench';

/**
 * Model-based test: random sequences of registrations, renewals, registrar failures of every
 * kind, retries with Idempotency-Keys, top-ups and reconciliations, run against the real order
 * service and database, and against a model that is nothing but a ledger: a balance, the names
 * held, the orders open, and the first answer given to each key. After every step the real
 * balance must equal the model's, every answer must be the model's, and the ledger invariant holds.
 */

const REGISTER = 10_00;
const RENEW = 12_00;
const NAMES = 3;
const KEYS = 3;
/** A registrar that did nothing (refund on reconciliation) or did it (complete on reconciliation). */
const DID_NOTHING: FakeBehaviour[] = ['timeout', 'lost', 'fault'];
const DID_IT: FakeBehaviour[] = ['late', 'pending'];
const RUNS = Number(process.env.PROPERTY_RUNS ?? 40);
const BEHAVIOURS: FakeBehaviour[] = ['succeed', 'refuse', 'unavailable', ...DID_NOTHING, ...DID_IT];

type Answer = 'success' | string; // 'success' or an error code
type Action = 'register' | 'renew';

interface Model {
  balance: number;
  /** Names held and Active, with their expiry year. */
  active: Map<number, number>;
  /** Names whose registration was refunded by reconciliation: kept as Cancelled for the reseller (issue 13 item 3). */
  cancelled: Set<number>;
  /** Open orders by name: what reconciliation will find at the registrar. */
  open: Map<number, { action: Action; registrarDidIt: boolean; price: number }>;
  keys: Map<number, { action: Action; name: number; answer: Answer }>;
}

interface Real {
  b: OrderBench;
  reseller: OrderingReseller;
  prefix: string;
}

const nameOf = (real: Real, n: number) => `${real.prefix}-n${n}.com`;

async function answerOf(promise: Promise<unknown>): Promise<Answer> {
  try {
    await promise;
    return 'success';
  } catch (error) {
    const code = (error as DomainError).code;
    if (!code) throw error;
    return code;
  }
}

async function expectConsistent(model: Model, real: Real): Promise<void> {
  expect(await real.b.balance(real.reseller)).toBe(model.balance);
  expect(await ledgerProblems(real.b.knex)).toEqual([]);
}

class TopUp implements fc.AsyncCommand<Model, Real> {
  constructor(readonly amount: number) {}
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    await real.b.credit.adjust(real.reseller.id, this.amount, 'property top-up');
    model.balance += this.amount;
    await expectConsistent(model, real);
  }
  toString = () => `topUp(${this.amount})`;
}

class Order implements fc.AsyncCommand<Model, Real> {
  constructor(
    readonly action: Action,
    readonly name: number,
    readonly behaviour: FakeBehaviour,
    readonly key: number | null,
  ) {}
  check = () => true;

  /** The answer the model expects, and its effect on the model. */
  private expected(model: Model): Answer {
    if (this.key !== null) {
      const used = model.keys.get(this.key);
      if (used) return used.action === this.action && used.name === this.name ? used.answer : 'idempotency_mismatch';
    }
    const price = this.action === 'register' ? REGISTER : RENEW;
    const open = model.open.get(this.name);
    if (this.action === 'register') {
      // A name the reseller holds is refused as held (400) even while a renewal of it is open; only
      // a name whose registration is still open is "in progress" (409), as the service checks.
      if (model.active.has(this.name)) return 'unavailable';
      if (open) return 'conflict';
    } else {
      if (!model.active.has(this.name) && !open)
        return model.cancelled.has(this.name) ? 'validation_failed' : 'not_owned';
      if (open?.action === 'register') return 'conflict';
      // A second renewal reaches the open-order lock only after its debit succeeded.
      if (model.balance < price) return 'insufficient_credit';
      if (open) return 'conflict';
    }
    if (model.balance < price) return 'insufficient_credit';
    model.balance -= price;
    let answer: Answer = 'success';
    switch (this.behaviour) {
      case 'succeed':
        model.cancelled.delete(this.name);
        if (this.action === 'register') model.active.set(this.name, 2027);
        else model.active.set(this.name, model.active.get(this.name)! + 1);
        break;
      case 'refuse':
        model.balance += price;
        answer = 'registrar_failed';
        break;
      case 'unavailable':
        model.balance += price;
        answer = 'unavailable';
        break;
      default:
        model.open.set(this.name, { action: this.action, registrarDidIt: DID_IT.includes(this.behaviour), price });
    }
    if (this.key !== null) model.keys.set(this.key, { action: this.action, name: this.name, answer });
    return answer;
  }

  async run(model: Model, real: Real): Promise<void> {
    const domain = nameOf(real, this.name);
    const options = this.key === null ? {} : { idempotencyKey: `key-${this.key}` };
    real.b.fake.script(domain, this.behaviour);
    const actual = await answerOf(
      this.action === 'register'
        ? real.b.orders.register(real.reseller, registration(domain), options)
        : real.b.orders.renew(real.reseller, { domain, period: 1, addons: {} }, options),
    );
    real.b.fake.unscript(domain);
    expect(actual).toBe(this.expected(model));
    await expectConsistent(model, real);
  }
  toString = () => `${this.action}(n${this.name}, ${this.behaviour}${this.key === null ? '' : `, key-${this.key}`})`;
}

class Reconcile implements fc.AsyncCommand<Model, Real> {
  check = () => true;
  async run(model: Model, real: Real): Promise<void> {
    real.b.clock.advance(AFTER_LEASE_MS);
    await real.b.orders.reconcile();
    for (const [name, open] of model.open) {
      if (open.registrarDidIt) {
        model.active.set(name, open.action === 'register' ? 2027 : model.active.get(name)! + 1);
        model.cancelled.delete(name);
      } else {
        model.balance += open.price;
        if (open.action === 'register') model.cancelled.add(name);
      }
    }
    model.open.clear();
    await expectConsistent(model, real);
    for (let n = 0; n < NAMES; n++) {
      const domain = await real.b.uow.read.domains.findByName(nameOf(real, n));
      expect(domain ? { status: domain.status, expiry: domain.expiryDate } : undefined).toEqual(
        model.active.has(n)
          ? { status: 'Active', expiry: `${model.active.get(n)}-11-21` }
          : model.cancelled.has(n)
            ? { status: 'Cancelled', expiry: null }
            : undefined,
      );
    }
  }
  toString = () => 'reconcile()';
}

describe('order properties against a ledger model', () => {
  let b: OrderBench;
  let run = 0;
  beforeAll(async () => {
    b = await startOrderBench();
  });
  afterAll(async () => {
    await b.close();
  });

  it(
    'never loses or double-charges money, whatever the sequence',
    async () => {
      const commands = fc.commands(
        [
          fc.integer({ min: 1, max: 30_00 }).map((amount) => new TopUp(amount)),
          fc
            .tuple(
              fc.constantFrom<Action>('register', 'register', 'renew'),
              fc.nat(NAMES - 1),
              fc.constantFrom(...BEHAVIOURS),
              fc.option(fc.nat(KEYS - 1), { nil: null }),
            )
            .map(([action, name, behaviour, key]) => new Order(action, name, behaviour, key)),
          fc.constant(new Reconcile()),
        ],
        { maxCommands: 25 },
      );

      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 0, max: 40_00 }), commands, async (opening, cmds) => {
          const reseller = await b.newReseller(opening);
          const real: Real = { b, reseller, prefix: `p${++run}` };
          const model: Model = {
            balance: opening,
            active: new Map(),
            cancelled: new Set(),
            open: new Map(),
            keys: new Map(),
          };
          await fc.asyncModelRun(() => ({ model, real }), cmds);
          // Whatever was left pending settles, and the books still balance.
          await new Reconcile().run(model, real);
          expect(await b.orders.list({ resellerId: reseller.id, status: 'pending' })).toEqual([]);
        }),
        { numRuns: RUNS },
      );
    },
    60_000 + RUNS * 2_000,
  );
});
