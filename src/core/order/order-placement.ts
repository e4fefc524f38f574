import { ulid } from '../common/ids';
import type { OrderAction } from '../catalogue/catalogue';
import { creditChanged } from '../credit/credit-service';
import { postWithBalance } from '../credit/ledger';
import { domainAddonsOf, type DomainRecord, type NewDomain } from '../domain/domain';
import type { Clock } from '../common/clock';
import { DomainError, type ErrorCode } from '../common/errors';
import type { Logger } from '../common/logger';
import { formatAmount } from '../common/money';
import type { Repositories, UnitOfWork } from '../common/unit-of-work';
import { isIsoDate } from './dates';
import { fingerprintOf, isFingerprintOf, parseIdempotencyKey } from './idempotency';
import type { SecretBox } from '../reseller/reseller';
import type { IdempotencyRecord, IdempotentAnswer, Order, PriorDomain } from './order';
import type { OrderSettlement } from './order-settlement';
import { NOUN, REQUEST_LEASE } from './order-settlement';
import { runAndPublish, statusChanged, type Outbox } from './outbox';
import type {
  OrderingReseller,
  OrderOptions,
  PlacedOrder,
  RegisterCommand,
  RenewCommand,
  TransferCommand,
} from './order-commands';
import type { RegistrarAnswer } from './order-registrar';
import { inProgress, notOwned, notRenewable } from '../domain/domain-errors';
import type { OrderPlanner, Plan } from './order-plan';
import type { OrderSettings } from './order-settings';
import { isGone, isPending, isRenewable, PENDING_STATUS_OF } from '../domain/domain-lifecycle';

/** Codes an idempotent replay may carry (what phase 3 can answer). */
const REPLAYABLE_CODES: readonly ErrorCode[] = ['unavailable', 'registrar_failed'];

/** Raised inside phase 1 when another request holds the Idempotency-Key: the transaction rolls back, then the key's answer is read. */
class KeyTaken extends Error {}

/**
 * Placing an order paid from prepaid credit: register, renew and transfer, the money path from
 * the request to its answer. Money never moves without an order, and every move is a conditional
 * update from the expected state (docs/orders.md):
 *
 * 0. an Idempotency-Key already answered is answered again; the order is planned (reads only);
 * 1. one short transaction reserves the price (a conditional debit) and creates the pending order
 *    (and, for register/transfer, the pending domain);
 * 2. the registrar is called under its deadline, outside any transaction;
 * 3. one short transaction settles: completed, or failed with the reservation refunded in full;
 *    an unknown outcome stays pending, money reserved, for reconciliation.
 */
export class OrderPlacement {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly planner: OrderPlanner,
    private readonly settlement: OrderSettlement,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: OrderSettings,
    /** Keys the Idempotency-Key fingerprints (idempotency.ts). */
    private readonly secrets: Pick<SecretBox, 'mac'>,
  ) {}

  /** docs/api.md#register-a-domain. Resolves with the order once registration is done or started; throws DomainError otherwise. */
  register(reseller: OrderingReseller, command: RegisterCommand, options: OrderOptions = {}): Promise<PlacedOrder> {
    return this.place(reseller, 'register', command, options, () =>
      this.planner.newDomain(reseller, 'register', command),
    );
  }

  /** docs/api.md#transfer-a-domain-in: the register body plus the EPP code. */
  transfer(reseller: OrderingReseller, command: TransferCommand, options: OrderOptions = {}): Promise<PlacedOrder> {
    return this.place(reseller, 'transfer', command, options, () =>
      this.planner.newDomain(reseller, 'transfer', command),
    );
  }

  /** docs/api.md#renew-a-domain. */
  renew(reseller: OrderingReseller, command: RenewCommand, options: OrderOptions = {}): Promise<PlacedOrder> {
    return this.place(reseller, 'renew', command, options, () => this.planner.renewal(reseller, command));
  }

  // ---- the three phases ----

  private async place(
    reseller: OrderingReseller,
    action: OrderAction,
    command: object,
    options: OrderOptions,
    makePlan: () => Promise<Plan>,
  ): Promise<PlacedOrder> {
    const key = options.idempotencyKey === undefined ? undefined : parseIdempotencyKey(options.idempotencyKey);
    const fingerprint = key === undefined ? undefined : fingerprintOf(action, command, this.secrets);
    const isThisRequest = (stored: string) => isFingerprintOf(stored, action, command, this.secrets);
    if (key !== undefined) {
      const replayed = await this.replay(await this.uow.read.idempotency.find(reseller.id, key), isThisRequest);
      if (replayed) return replayed;
    }
    const plan = await makePlan();
    let order: Order;
    try {
      order = await this.reserve(reseller, plan, key, fingerprint);
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
      const replayed = await this.replay(await this.uow.read.idempotency.find(reseller.id, key!), isThisRequest);
      if (replayed) return replayed;
      throw keyInFlight();
    }
    this.logger.info(
      { orderId: order.id, action, domain: order.domain, price: order.price },
      'order placed, price reserved',
    );
    return this.conclude(order, await this.callRegistrar(plan, order));
  }

  /**
   * Undefined when the request should go ahead (a new or expired key); otherwise the first
   * answer again: the first order (with its status now), or the first error thrown once more. A
   * key still in flight is a 409, a key used for another request a 422.
   */
  private async replay(
    record: IdempotencyRecord | undefined,
    isThisRequest: (storedFingerprint: string) => boolean,
  ): Promise<PlacedOrder | undefined> {
    if (!record || record.expiresAt.getTime() <= this.clock.now().getTime()) return undefined;
    if (!isThisRequest(record.fingerprint)) {
      throw new DomainError(
        'idempotency_mismatch',
        `Idempotency-Key "${record.key}" was already used for a different request; send a new key for a new request`,
      );
    }
    if (record.state === 'in_flight' || !record.answer) throw keyInFlight();
    answerOf(record.answer);
    // Every key is stored with its order (order_id is nullable only in the table's shape).
    if (!record.orderId) throw new Error(`Idempotency-Key "${record.key}" has no order recorded`);
    const order = await this.uow.read.orders.findById(record.orderId);
    return { orderId: record.orderId, status: order?.status ?? 'pending' };
  }

  /** Phase 1: one short transaction. Nothing is written unless everything is. */
  private reserve(
    reseller: OrderingReseller,
    plan: Plan,
    key: string | undefined,
    fingerprint: string | undefined,
  ): Promise<Order> {
    return runAndPublish(this.uow, async (repos, outbox) => {
      const now = this.clock.now();
      const orderId = ulid();
      if (key !== undefined) {
        const record: IdempotencyRecord = {
          resellerId: reseller.id,
          key,
          fingerprint: fingerprint!,
          state: 'in_flight',
          orderId,
          answer: null,
          createdAt: now,
          expiresAt: new Date(now.getTime() + this.settings.idempotencyTtlMs),
        };
        // Inserted first: a new key (the common case) costs one statement, and two requests with
        // one key do not both delete-then-insert into the same gap (a deadlock on MariaDB). Only a
        // key found taken is looked at again: an expired one is removed and the key used anew.
        const taken =
          !(await repos.idempotency.insert(record)) &&
          !((await repos.idempotency.deleteExpired(reseller.id, key, now)) && (await repos.idempotency.insert(record)));
        if (taken) throw new KeyTaken();
      }
      const { domainId, prior } =
        plan.action === 'renew'
          ? await this.claimForRenewal(repos, reseller, plan)
          : await this.claimNewDomain(repos, reseller, plan, now, outbox);
      const order: Order = {
        id: orderId,
        resellerId: reseller.id,
        action: plan.action,
        domainId,
        domain: plan.domain.ascii,
        registrar: plan.registrar,
        period: plan.period,
        price: plan.price,
        status: 'pending',
        priorDomain: prior,
        request: plan.request,
        originalVars: plan.originalVars,
        idempotencyKey: key ?? null,
        expiryDate: null,
        note: null,
        // The request path owns the order through its registrar call; reconciliation waits beyond that.
        leaseOwner: `${REQUEST_LEASE}${orderId}`,
        leaseUntil: new Date(now.getTime() + this.settings.registrarTimeoutMs + this.settings.reconcileAfterMs),
        reconcileAttempts: 0,
        createdAt: now,
        updatedAt: now,
        settledAt: null,
      };
      // The order row before the money: its insert checks the reseller (a shared lock on MariaDB), and
      // every transaction takes a reseller before its balance, never after (docs/architecture.md#lock-order).
      if (!(await repos.orders.insert(order))) throw inProgress(plan.domain.unicode);
      const debit = {
        id: ulid(),
        resellerId: reseller.id,
        amount: -plan.price,
        kind: 'order_debit' as const,
        orderId,
        note: `${plan.action} ${plan.domain.ascii} for ${plan.period} year(s)`,
        createdAt: now,
      };
      const balanceAfter = await postWithBalance(repos.ledger, debit);
      if (balanceAfter === null) {
        const balance = await repos.ledger.balance(reseller.id);
        throw new DomainError(
          'insufficient_credit',
          `Insufficient credit: the ${NOUN[plan.action]} of ${plan.domain.unicode} costs ${formatAmount(plan.price)} and the balance is ${formatAmount(balance)}`,
        );
      }
      outbox.push({ name: 'credit.changed', event: creditChanged(debit, balanceAfter) });
      outbox.push({
        name: 'order.placed',
        event: {
          orderId,
          resellerId: reseller.id,
          action: plan.action,
          domain: plan.domain.ascii,
          period: plan.period,
          price: plan.price,
          at: now,
        },
      });
      return order;
    });
  }

  private async claimNewDomain(
    repos: Repositories,
    reseller: OrderingReseller,
    plan: Plan,
    now: Date,
    outbox: Outbox,
  ): Promise<{ domainId: string; prior: PriorDomain | null }> {
    const status = PENDING_STATUS_OF[plan.action as 'register' | 'transfer'];
    // A new name is inserted straight away: the unique name decides, between concurrent orders
    // too, and a name the platform has never held (the common case) costs no read. Only when the
    // name is taken is the row read, to tell in progress, held, or free to order again.
    // The platform's record starts with what the order asked for, so information and the admin CLI show it at once.
    const record: NewDomain = {
      id: ulid(),
      name: plan.domain.ascii,
      unicodeName: plan.domain.unicode,
      tld: plan.domain.tld,
      resellerId: reseller.id,
      registrar: plan.registrar,
      status,
      expiryDate: null,
      nameservers: plan.request.nameservers ?? [],
      addons: domainAddonsOf(plan.request.addons),
      ...(plan.premiumCosts && { premiumCosts: plan.premiumCosts }),
      createdAt: now,
    };
    if (await repos.domains.insertForOrder(record)) {
      statusChanged(outbox, { domainId: record.id, domain: record.name }, reseller.id, null, status, now);
      return { domainId: record.id, prior: null };
    }
    const existing = await repos.domains.findByName(plan.domain.ascii);
    // Taken a moment ago and gone now: a failing order is removing its row; the name is still in play.
    if (!existing) throw inProgress(plan.domain.unicode);
    if (isPending(existing.status)) throw inProgress(plan.domain.unicode);
    // A name that left the platform may be registered or transferred in again, by anyone.
    if (isGone(existing.status)) {
      const moved = await repos.domains.transitionForOrder(existing.id, [existing.status], {
        status,
        resellerId: reseller.id,
        registrar: plan.registrar,
        expiryDate: null,
        premiumCosts: plan.premiumCosts ?? null,
        at: now,
      });
      if (!moved) throw inProgress(plan.domain.unicode);
      statusChanged(
        outbox,
        { domainId: existing.id, domain: existing.name },
        reseller.id,
        existing.status,
        status,
        now,
      );
      return {
        domainId: existing.id,
        prior: priorOf(existing),
      };
    }
    if (existing.resellerId === reseller.id) {
      throw new DomainError('unavailable', `${plan.domain.unicode} is already in your account (${existing.status})`);
    }
    throw new DomainError('unavailable', `${plan.domain.unicode} is not available`);
  }

  private async claimForRenewal(
    repos: Repositories,
    reseller: OrderingReseller,
    plan: Plan,
  ): Promise<{ domainId: string; prior: PriorDomain }> {
    const existing = await repos.domains.findByName(plan.domain.ascii);
    if (!existing || existing.resellerId !== reseller.id) throw notOwned(plan.domain.unicode);
    if (isPending(existing.status)) throw inProgress(plan.domain.unicode);
    if (!isRenewable(existing.status)) throw notRenewable(plan.domain.unicode, existing.status);
    // A second renewal of the same domain is refused by the open-order index when the order is inserted.
    return {
      domainId: existing.id,
      prior: priorOf(existing),
    };
  }

  /** Phase 2. A port that throws (a rebound one may) has not given a definite answer: unknown, never a refusal. */
  private async callRegistrar(plan: Plan, order: Order): Promise<RegistrarAnswer> {
    try {
      return await plan.call(order);
    } catch (error) {
      this.logger.warn({ orderId: order.id, err: error }, 'registrar port threw; outcome unknown');
      return {
        kind: 'unknown',
        message: error instanceof Error ? error.message.slice(0, 300) : 'the registrar call failed',
      };
    }
  }

  /** Phase 3: the registrar's answer settles the order through the settlement, or leaves it pending. */
  private async conclude(order: Order, answer: RegistrarAnswer): Promise<PlacedOrder> {
    const pending: PlacedOrder = { orderId: order.id, status: 'pending' };
    try {
      if (answer.kind === 'done') {
        if (order.action === 'transfer' && !isIsoDate(answer.expiryDate)) {
          // Accepted by the registrar but finished by the registry later: reconciliation follows the transfer.
          await this.settlement.leave(
            order,
            'the registrar accepted the transfer; waiting for the registry to complete it',
            {
              reconcileAttempt: false,
              answer: { ok: true },
            },
          );
          return pending;
        }
        const expiryDate = this.settlement.expiryAfter(order, answer.expiryDate);
        const settled = await this.settlement.complete(order, expiryDate, `${NOUN[order.action]} done`, {
          fromRegistrar: isIsoDate(answer.expiryDate),
        });
        return settled === 'completed' ? { orderId: order.id, status: 'completed' } : this.answerOfSettled(order.id);
      }
      if (answer.kind === 'refused') {
        const refusal = refusalError(order, answer.reason, answer.message);
        const settled = await this.settlement.refund(order, `refused by the registrar: ${answer.message}`, 'request', {
          ok: false,
          code: refusal.code,
          message: refusal.message,
        });
        if (settled !== 'refunded') return this.answerOfSettled(order.id);
        this.logger.info(
          { orderId: order.id, reason: answer.reason },
          'order failed at the registrar; reservation refunded',
        );
        throw refusal;
      }
      // docs/api.md#register-a-domain: the reply is success, registration started; a retry replays exactly that.
      await this.settlement.leave(order, `no definite answer from the registrar: ${answer.message}`, {
        reconcileAttempt: false,
        answer: { ok: true },
      });
      this.logger.warn(
        { orderId: order.id, domain: order.domain },
        'registrar outcome unknown; order stays pending for reconciliation',
      );
      return pending;
    } catch (error) {
      if (error instanceof DomainError) throw error;
      // The registrar has answered but the answer could not be recorded (database lost mid-way):
      // the order is still pending with its money reserved, and reconciliation will record what
      // the registrar did. Answer what the registrar said, which is what the order will become.
      this.logger.error(
        { orderId: order.id, err: error },
        'could not record the registrar outcome; reconciliation will settle the order',
      );
      if (answer.kind === 'refused') throw refusalError(order, answer.reason, answer.message);
      return pending;
    }
  }

  /** Another party settled the order first: answer what it became. */
  private async answerOfSettled(orderId: string): Promise<PlacedOrder> {
    const order = await this.uow.read.orders.findById(orderId);
    if (order?.status === 'failed')
      throw new DomainError(
        'registrar_failed',
        `The order for ${order.domain} failed and was refunded: ${order.note ?? 'no reason recorded'}`,
      );
    return { orderId, status: order?.status ?? 'pending' };
  }
}

/** Throws the first answer's error again; returns when the first answer was a success. */
function answerOf(answer: IdempotentAnswer): void {
  if (answer.ok) return;
  const code = REPLAYABLE_CODES.includes(answer.code as ErrorCode) ? (answer.code as ErrorCode) : 'registrar_failed';
  throw new DomainError(code, answer.message);
}

function refusalError(order: Order, reason: 'unavailable' | 'refused', message: string): DomainError {
  if (reason === 'unavailable') return new DomainError('unavailable', `${order.domain} is not available: ${message}`);
  return new DomainError(
    'registrar_failed',
    `The registrar refused the ${NOUN[order.action]} of ${order.domain}: ${message}`,
  );
}

const keyInFlight = () =>
  new DomainError('conflict', 'A request with this Idempotency-Key is still in progress; retry later');

/** What the order keeps of the domain as it was, to restore it if the order is refused at once. */
function priorOf(domain: DomainRecord): PriorDomain {
  return {
    status: domain.status,
    resellerId: domain.resellerId,
    registrar: domain.registrar,
    expiryDate: domain.expiryDate,
  };
}
