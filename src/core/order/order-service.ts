import { ulid } from '../common/ids';
import { ADDONS, MAX_PERIOD, MIN_PERIOD, type AddonName, type OrderAction, type Tld } from '../catalogue/catalogue';
import type { CatalogueService } from '../catalogue/catalogue-service';
import { premiumPrice } from '../catalogue/premium';
import { creditChanged } from '../credit/credit-service';
import { postWithBalance } from '../credit/ledger';
import { domainAddonsOf, heldAddons, type DomainRecord, type DomainStatus, type NewDomain } from '../domain/domain';
import type { TransferHandOver, TransferOrders, TransferOutcome } from '../domain/domain-sync-service';
import { parseDomainName, type RegistrableDomain } from '../domain/domain-name';
import type { Contacts } from '../registrar/plugin';
import type { Clock } from '../common/clock';
import { DomainError, type ErrorCode } from '../common/errors';
import type { Logger } from '../common/logger';
import { formatAmount, type Minor } from '../common/money';
import type { Repositories, UnitOfWork } from '../common/unit-of-work';
import { assertCompleteRegistrant, withDefaultRegistrant } from './contacts';
import { addYears, isIsoDate } from './dates';
import { registrarMessage } from './gateway-order-registrar';
import { fingerprintOf, parseIdempotencyKey } from './idempotency';
import type { IdempotencyRecord, IdempotentAnswer, Order, OrderListFilter, OrderRequest, PriorDomain } from './order';
import type { OrderSettlement, Verdict } from './order-settlement';
import { NOUN, PENDING_STATUS_OF, RENEWABLE_STATUSES, REQUEST_LEASE } from './order-settlement';
import { runAndPublish, statusChanged, type Outbox } from './outbox';
import type { OrderingReseller, OrderOptions, RegisterCommand, RenewCommand, TransferCommand } from './order-commands';
import type { OrderRegistrar, RegistrarAnswer, TransferStatus } from './order-registrar';

export interface OrderSettings {
  /** The registrar deadline: the request path owns a new order at least this long. */
  readonly registrarTimeoutMs: number;
  /**
   * How long after the deadline reconciliation keeps its hands off a pending order, and how long
   * it waits before asking again about one it could not settle: a registrar may still act on a
   * request it answered late.
   */
  readonly reconcileAfterMs: number;
  /** How long an Idempotency-Key and its first answer are kept (at least 24 h). */
  readonly idempotencyTtlMs: number;
  /** Pending orders looked at per reconciliation pass. */
  readonly reconcileBatch: number;
  /**
   * Days an order may stay pending before reconciliation hands it to the operator (its note says
   * so, `order list --status pending` shows it, the log reports it at error level): registries
   * take up to five days to finish a transfer.
   */
  readonly pendingLimitDays: number;
}

export interface ReconcileReport {
  /** Pending orders this pass claimed and asked the registrar about. */
  readonly checked: number;
  readonly completed: number;
  readonly refunded: number;
  /** Still pending: the registrar could not say; asked again after a backoff (`reconcileAfterMs`, doubled per attempt). */
  readonly unresolved: number;
  /** Claimed by another process (or settled) between listing and claiming, or settled by another party (transfer sync, say) while asked about. */
  readonly busy: number;
  readonly purgedIdempotencyKeys: number;
  readonly orders: readonly ReconciledOrder[];
}

export interface ReconciledOrder {
  readonly id: string;
  readonly domain: string;
  readonly action: OrderAction;
  readonly result: 'completed' | 'refunded' | 'unresolved';
  readonly note: string;
}

/** Everything phase 1 needs, worked out before the transaction from the catalogue and the command. */
interface Plan {
  readonly action: OrderAction;
  readonly domain: RegistrableDomain;
  readonly registrar: string;
  readonly period: number;
  readonly price: Minor;
  readonly request: OrderRequest;
  readonly originalVars: string | null;
  /** Phase 2: the registrar call, made outside any transaction. */
  readonly call: (order: Order) => Promise<RegistrarAnswer>;
}

const PENDING_STATUSES: readonly DomainStatus[] = ['Pending', 'Pending Registration', 'Pending Transfer'];
/** A name that left the platform may be registered or transferred in again, by anyone. */
const REUSABLE_STATUSES: readonly DomainStatus[] = ['Cancelled', 'Transferred Away'];
/** Codes an idempotent replay may carry (what phase 3 can answer). */
const REPLAYABLE_CODES: readonly ErrorCode[] = ['unavailable', 'registrar_failed'];
const MAX_ORIGINAL_VARS = 16 * 1024;

const DAY_MS = 86_400_000;
/** How an order handed to the operator is marked in its note (and so in `order list`). */
export const OPERATOR_NOTE = 'needs the operator';
const DOMAIN_CHANGED =
  'not refunded: the domain changed while the order was open (the name was ours); settle it with `order settle`';

/** Raised inside phase 1 when another request holds the Idempotency-Key: the transaction rolls back, then the key's answer is read. */
class KeyTaken extends Error {}

/**
 * Orders paid from prepaid credit: register, renew and transfer, and the reconciliation that
 * settles what a registrar left unanswered. Money never moves without an order, and every move
 * is a conditional update from the expected state (docs/orders.md):
 *
 * 1. one short transaction reserves the price (a conditional debit) and creates the pending order
 *    (and, for register/transfer, the pending domain);
 * 2. the registrar is called under its deadline, outside any transaction;
 * 3. one short transaction settles: completed, or failed with the reservation refunded in full;
 *    an unknown outcome stays pending, money reserved, for reconciliation.
 */
export class OrderService implements TransferOrders {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly registrar: OrderRegistrar,
    private readonly catalogue: CatalogueService,
    private readonly settlement: OrderSettlement,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: OrderSettings,
  ) {}

  /** docs/api.md#register-a-domain. Resolves 'success' once registration is done or started; throws DomainError otherwise. */
  register(reseller: OrderingReseller, command: RegisterCommand, options: OrderOptions = {}): Promise<'success'> {
    return this.place(reseller, 'register', command, options, () => this.planNewDomain(reseller, 'register', command));
  }

  /** docs/api.md#transfer-a-domain-in: the register body plus the EPP code. */
  transfer(reseller: OrderingReseller, command: TransferCommand, options: OrderOptions = {}): Promise<'success'> {
    return this.place(reseller, 'transfer', command, options, () => this.planNewDomain(reseller, 'transfer', command));
  }

  /** docs/api.md#renew-a-domain. */
  renew(reseller: OrderingReseller, command: RenewCommand, options: OrderOptions = {}): Promise<'success'> {
    return this.place(reseller, 'renew', command, options, () => this.planRenewal(reseller, command));
  }

  get(id: string): Promise<Order | undefined> {
    return this.uow.read.orders.findById(id);
  }

  list(filter: OrderListFilter = {}): Promise<Order[]> {
    return this.uow.read.orders.list(filter);
  }

  // ---- the three phases ----

  private async place(
    reseller: OrderingReseller,
    action: OrderAction,
    command: object,
    options: OrderOptions,
    makePlan: () => Promise<Plan>,
  ): Promise<'success'> {
    const key = options.idempotencyKey === undefined ? undefined : parseIdempotencyKey(options.idempotencyKey);
    const fingerprint = key === undefined ? undefined : fingerprintOf(action, command);
    if (key !== undefined) {
      const replayed = this.replay(await this.uow.read.idempotency.find(reseller.id, key), fingerprint!);
      if (replayed) return replayed;
    }
    const plan = await makePlan();
    let order: Order;
    try {
      order = await this.reserve(reseller, plan, key, fingerprint);
    } catch (error) {
      if (!(error instanceof KeyTaken)) throw error;
      const replayed = this.replay(await this.uow.read.idempotency.find(reseller.id, key!), fingerprint!);
      if (replayed) return replayed;
      throw keyInFlight();
    }
    this.logger.info(
      { orderId: order.id, action, domain: order.domain, price: order.price },
      'order placed, price reserved',
    );
    return this.conclude(order, await this.callRegistrar(plan, order));
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

  /**
   * Undefined when the request should go ahead (a new or expired key); otherwise the first
   * answer again: 'success', or the first error thrown once more. A key still in flight is a
   * 409, a key used for another request a 422.
   */
  private replay(record: IdempotencyRecord | undefined, fingerprint: string): 'success' | undefined {
    if (!record || record.expiresAt.getTime() <= this.clock.now().getTime()) return undefined;
    if (record.fingerprint !== fingerprint) {
      throw new DomainError(
        'idempotency_mismatch',
        `Idempotency-Key "${record.key}" was already used for a different request; send a new key for a new request`,
      );
    }
    if (record.state === 'in_flight' || !record.answer) throw keyInFlight();
    return answerOf(record.answer);
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
        await repos.idempotency.deleteExpired(reseller.id, key, now);
        const taken = !(await repos.idempotency.insert({
          resellerId: reseller.id,
          key,
          fingerprint: fingerprint!,
          state: 'in_flight',
          orderId,
          answer: null,
          createdAt: now,
          expiresAt: new Date(now.getTime() + this.settings.idempotencyTtlMs),
        }));
        if (taken) throw new KeyTaken();
      }
      const { domainId, prior } =
        plan.action === 'renew'
          ? await this.claimForRenewal(repos, reseller, plan)
          : await this.claimNewDomain(repos, reseller, plan, now, outbox);
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
      if (!(await repos.orders.insert(order))) throw inProgress(plan.domain.unicode);
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
      createdAt: now,
    };
    if (await repos.domains.insertForOrder(record)) {
      statusChanged(outbox, { domainId: record.id, domain: record.name }, reseller.id, null, status, now);
      return { domainId: record.id, prior: null };
    }
    const existing = await repos.domains.findByName(plan.domain.ascii);
    // Taken a moment ago and gone now: a failing order is removing its row; the name is still in play.
    if (!existing) throw inProgress(plan.domain.unicode);
    if (PENDING_STATUSES.includes(existing.status)) throw inProgress(plan.domain.unicode);
    if (REUSABLE_STATUSES.includes(existing.status)) {
      const moved = await repos.domains.transitionForOrder(existing.id, [existing.status], {
        status,
        resellerId: reseller.id,
        registrar: plan.registrar,
        expiryDate: null,
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
        prior: {
          status: existing.status,
          resellerId: existing.resellerId,
          registrar: existing.registrar,
          expiryDate: existing.expiryDate,
        },
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
    if (PENDING_STATUSES.includes(existing.status)) throw inProgress(plan.domain.unicode);
    if (!RENEWABLE_STATUSES.includes(existing.status)) throw notRenewable(plan.domain.unicode, existing.status);
    // A second renewal of the same domain is refused by the open-order index when the order is inserted.
    return {
      domainId: existing.id,
      prior: {
        status: existing.status,
        resellerId: existing.resellerId,
        registrar: existing.registrar,
        expiryDate: existing.expiryDate,
      },
    };
  }

  /** Phase 3: the registrar's answer settles the order through the settlement, or leaves it pending. */
  private async conclude(order: Order, answer: RegistrarAnswer): Promise<'success'> {
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
          return 'success';
        }
        const expiryDate = this.settlement.expiryAfter(order, answer.expiryDate);
        const settled = await this.settlement.complete(order, expiryDate, `${NOUN[order.action]} done`, {
          fromRegistrar: isIsoDate(answer.expiryDate),
        });
        return settled === 'completed' ? 'success' : this.answerOfSettled(order.id);
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
      return 'success';
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
      return 'success';
    }
  }

  /** Another party settled the order first: answer what it became. */
  private async answerOfSettled(orderId: string): Promise<'success'> {
    const order = await this.uow.read.orders.findById(orderId);
    if (order?.status === 'failed')
      throw new DomainError(
        'registrar_failed',
        `The order for ${order.domain} failed and was refunded: ${order.note ?? 'no reason recorded'}`,
      );
    return 'success';
  }

  // ---- reconciliation ----

  /**
   * Settles pending orders whose request path is over (its lease ran out): asks the registrar
   * and completes or refunds, each exactly once. Several processes may run this at once: an
   * order is claimed with a conditional update of its lease before the registrar is asked. An
   * order the registrar cannot settle is asked about again after a backoff that doubles per
   * attempt; one pending longer than `pendingLimitDays` is flagged for the operator.
   */
  async reconcile(options: { limit?: number; owner?: string; signal?: AbortSignal } = {}): Promise<ReconcileReport> {
    const owner = (options.owner ?? `reconciler:${ulid()}`).slice(0, 64);
    const candidates = await this.uow.read.orders.listClaimable(
      this.clock.now(),
      options.limit ?? this.settings.reconcileBatch,
    );
    const report = {
      checked: 0,
      completed: 0,
      refunded: 0,
      unresolved: 0,
      busy: 0,
      purgedIdempotencyKeys: 0,
      orders: [] as ReconciledOrder[],
    };
    for (const candidate of candidates) {
      // A process that is stopping claims no more orders; the rest wait for the next pass anywhere.
      if (options.signal?.aborted) break;
      try {
        const result = await this.reconcileOne(candidate.id, owner);
        if (result === 'busy') {
          report.busy++;
          continue;
        }
        report.checked++;
        report[
          result.result === 'completed' ? 'completed' : result.result === 'refunded' ? 'refunded' : 'unresolved'
        ]++;
        report.orders.push(result);
      } catch (error) {
        // The lease stays: the order is asked about again once it runs out.
        this.logger.error({ orderId: candidate.id, err: error }, 'reconciliation of an order failed');
        report.checked++;
        report.unresolved++;
        report.orders.push({
          id: candidate.id,
          domain: candidate.domain,
          action: candidate.action,
          result: 'unresolved',
          note: 'reconciliation failed; see the server log',
        });
      }
    }
    const now = this.clock.now();
    report.purgedIdempotencyKeys = await this.uow.run((repos) => repos.idempotency.purgeExpired(now));
    return report;
  }

  /** Takes an order's lease (one conditional update) for the length of one registrar question. */
  private claim(orderId: string, owner: string): Promise<boolean> {
    const now = this.clock.now();
    const until = new Date(now.getTime() + this.settings.registrarTimeoutMs + this.settings.reconcileAfterMs);
    return this.uow.run((repos) => repos.orders.claim(orderId, owner, now, until));
  }

  private async reconcileOne(orderId: string, owner: string): Promise<'busy' | ReconciledOrder> {
    if (!(await this.claim(orderId, owner))) return 'busy';
    const order = await this.uow.read.orders.findById(orderId);
    if (order?.status !== 'pending') return 'busy';
    let verdict = await this.verdict(order);
    let result: ReconciledOrder['result'] = 'unresolved';
    if (verdict.kind !== 'leave') {
      const settled = await this.settlement.apply(order, verdict, 'reconciliation');
      // Settled meanwhile by another party (transfer sync, a request path past its deadline): not this pass's to report.
      if (settled === 'settled_already') return 'busy';
      if (settled === 'completed' || settled === 'refunded') result = settled;
      else verdict = { kind: 'leave', note: `${verdict.note}; ${DOMAIN_CHANGED}` };
    }
    if (result === 'unresolved') {
      verdict = { kind: 'leave', note: this.overdue(order, verdict.note) };
      // Published once: when the note first says so.
      const needsOperator = verdict.note.startsWith(OPERATOR_NOTE) && !order.note?.startsWith(OPERATOR_NOTE);
      await this.settlement.leave(order, verdict.note, { reconcileAttempt: true, needsOperator });
    }
    this.logger.info({ orderId: order.id, result, note: verdict.note }, 'order reconciled');
    return { id: order.id, domain: order.domain, action: order.action, result, note: verdict.note };
  }

  /** An order pending longer than the limit is the operator's: the note says so and the log shouts. */
  private overdue(order: Order, note: string): string {
    const days = Math.floor((this.clock.now().getTime() - order.createdAt.getTime()) / DAY_MS);
    if (days < this.settings.pendingLimitDays) return note;
    this.logger.error(
      { orderId: order.id, domain: order.domain, days },
      'order pending past the limit; settle it with `reseller-admin order settle`',
    );
    return `${OPERATOR_NOTE} (pending ${days} days): ${note}`;
  }

  // ---- the operator settles by hand ----

  /**
   * `reseller-admin order settle`: the operator completes or refunds a pending order after
   * checking with the registrar, through the same settlement as every other path, exactly once
   * (an order settled meanwhile is refused, whoever settled it). A refund keeps a register or
   * transfer's domain as Cancelled for the reseller, as reconciliation does.
   */
  async settleByOperator(
    orderId: string,
    decision: { readonly outcome: 'complete' | 'refund'; readonly note: string; readonly expiryDate?: string },
  ): Promise<Order> {
    const note = decision.note.trim();
    if (note === '') throw new DomainError('validation_failed', 'a note is required: say why the order is settled');
    if (decision.expiryDate !== undefined && !isIsoDate(decision.expiryDate))
      throw new DomainError('validation_failed', `the expiry date must be YYYY-MM-DD, not "${decision.expiryDate}"`);
    const order = await this.uow.read.orders.findById(orderId);
    if (!order) throw new DomainError('not_found', `No order with id ${orderId}`);
    if (order.status !== 'pending')
      throw new DomainError('conflict', `Order ${orderId} is already ${order.status}; nothing was changed`);
    this.settlement.assertOperatorMay(order, decision);
    const settled =
      decision.outcome === 'complete'
        ? await this.settlement.complete(
            order,
            decision.expiryDate ?? this.settlement.expiryAfter(order, undefined),
            `operator: ${note}`,
            { fromRegistrar: false },
          )
        : await this.settlement.refund(order, `operator: ${note}`, 'operator');
    if (settled === 'settled_already') {
      const now = await this.uow.read.orders.findById(orderId);
      throw new DomainError('conflict', `Order ${orderId} was settled meanwhile (${now?.status}); nothing was changed`);
    }
    this.logger.info({ orderId, result: settled, note }, 'order settled by the operator');
    return (await this.uow.read.orders.findById(orderId))!;
  }

  // ---- transfer sync hands over what it learnt ----

  /**
   * Transfer sync learnt the outcome of a transfer (docs/domain-management.md): when the domain
   * has an open transfer order, the order is settled here, through the same settlement as phase 3
   * and reconciliation (each move a conditional update from pending, so whoever settles first
   * wins and the others change nothing).
   *
   * - completed: the order completes and the domain becomes Active with the registrar's expiry,
   *   at once: the domain is in our account, whoever holds the order's lease.
   * - failed: a refund needs the order's lease, taken like reconciliation takes it. While the
   *   request path holds it (its registrar call may still be in flight, so a failure reported now
   *   may be about an earlier state) or a reconciler does, the order is left to that holder and the
   *   failure noted on it; the next transfer sync or reconciliation after the lease refunds it.
   * - unconfirmed (the registrar cannot report transfers): nothing is settled on the platform's
   *   own word; reconciliation asks the registrar whose the domain is.
   */
  async settleTransfer(domain: DomainRecord, outcome: TransferOutcome): Promise<TransferHandOver> {
    const order = await this.uow.read.orders.findOpen(domain.name);
    if (order?.action !== 'transfer' || order.domainId !== domain.id) return { kind: 'no_order' };
    if (outcome.kind === 'unconfirmed') {
      return { kind: 'left', note: 'the registrar cannot report transfer progress; reconciliation settles the order' };
    }
    const verdict = transferVerdict(
      outcome.kind === 'completed' ? outcome : { kind: 'failed', reason: registrarMessage(outcome.reason) },
      'transfer sync',
    );
    if (verdict.kind === 'leave') return { kind: 'left', note: verdict.note };
    if (verdict.kind === 'refund' && !(await this.claim(order.id, `transfer-sync:${ulid()}`))) {
      const note = `${verdict.note}; refunded once the order's lease runs out`;
      await this.settlement.leave(order, note, { reconcileAttempt: false });
      this.logger.info(
        { orderId: order.id, domain: order.domain },
        'transfer sync reports the transfer failed; the order is leased, left to its holder',
      );
      return { kind: 'left', note };
    }
    const result = await this.settlement.apply(order, verdict, 'transfer sync');
    if (result === 'settled_already') return { kind: 'left', note: 'the order was settled meanwhile' };
    if (result !== 'completed' && result !== 'refunded') {
      const note = `${verdict.note}; ${DOMAIN_CHANGED}`;
      await this.settlement.leave(order, note, { reconcileAttempt: false });
      return { kind: 'left', note };
    }
    this.logger.info({ orderId: order.id, result, note: verdict.note }, 'order settled by transfer sync');
    return { kind: 'settled', result, status: result === 'completed' ? 'Active' : 'Cancelled' };
  }

  private async verdict(order: Order): Promise<Verdict> {
    if (order.action === 'transfer') {
      return transferVerdict(await this.registrar.transferStatus(order.registrar, order.domain), 'reconciled');
    }
    const found = await this.registrar.lookup(order.registrar, order.domain);
    if (found.kind === 'unknown') return { kind: 'leave', note: `reconciliation could not tell: ${found.message}` };
    if (found.kind === 'not_ours')
      return { kind: 'refund', note: `reconciled: ${order.domain} is not registered in our account at the registrar` };
    if (order.action === 'register') {
      return {
        kind: 'complete',
        expiryDate: this.settlement.expiryAfter(order, found.expiryDate),
        note: 'reconciled: registered in our account',
        fromRegistrar: isIsoDate(found.expiryDate),
      };
    }
    // Renewal: did the registrar's expiry move by the period?
    const before = order.priorDomain?.expiryDate;
    if (!before || !isIsoDate(found.expiryDate))
      return { kind: 'leave', note: 'reconciliation could not tell: no expiry date to compare' };
    if (found.expiryDate >= addYears(before, order.period))
      return {
        kind: 'complete',
        expiryDate: found.expiryDate,
        note: 'reconciled: the renewal went through',
        fromRegistrar: true,
      };
    if (found.expiryDate <= before)
      return {
        kind: 'refund',
        note: `reconciled: the registrar still has ${found.expiryDate} as the expiry; the renewal did not happen`,
      };
    return { kind: 'leave', note: `reconciliation could not tell: the registrar reports ${found.expiryDate}` };
  }

  // ---- planning (validation before phase 1; reads only) ----

  private async planNewDomain(
    reseller: OrderingReseller,
    action: 'register' | 'transfer',
    command: RegisterCommand | TransferCommand,
  ): Promise<Plan> {
    const { domain, tld } = await this.catalogue.resolveDomain(reseller.groupId, command.domain);
    this.assertRegistrarAvailable(tld.registrar, domain.unicode);
    if (action === 'transfer' && !this.registrar.supports(tld.registrar, 'transfer')) {
      throw new DomainError(
        'capability_missing',
        `The registrar serving ${tld.tld} does not support transfers (capability "transfer")`,
      );
    }
    const addons = enabledAddons(command.addons);
    const charge = await this.catalogueCharge(reseller, action, tld, command.period, addons);
    const nameservers = checkNameservers(command.nameservers);
    // The group is read only for its default registrant, so only when the order carries none.
    const group = command.contacts.registrant ? undefined : await this.uow.read.groups.findById(reseller.groupId);
    const contacts: Contacts = withDefaultRegistrant(command.contacts, group?.defaultContact ?? null);
    assertCompleteRegistrant(contacts.registrant!);
    const originalVars = checkOriginalVars(command.originalVars);
    // Asked last: an order refused for its own input costs no registrar call.
    const premium = await this.premiumPriceOf(reseller, action, tld.registrar, domain, command);
    const price = priceWith(charge, premium?.total);
    const eppCode = action === 'transfer' ? (command as TransferCommand).eppCode : undefined;
    const request: OrderRequest = {
      nameservers,
      contacts,
      addons,
      fields: command.fields,
      ...(command.idnLanguage && { idnLanguage: command.idnLanguage }),
    };
    const registrarInput = {
      domain: domain.ascii,
      period: command.period,
      nameservers,
      contacts,
      addons: Object.fromEntries(ADDONS.map((a) => [a, addons.includes(a)])),
      fields: command.fields,
      ...(command.idnLanguage && { idnLanguage: command.idnLanguage }),
      ...(premium && { premiumCost: premium.cost }),
    };
    return {
      action,
      domain,
      registrar: tld.registrar,
      period: command.period,
      price,
      request,
      originalVars,
      call: (order) =>
        action === 'transfer'
          ? this.registrar.transfer(order.registrar, { ...registrarInput, eppCode: eppCode! }, order.id)
          : this.registrar.register(order.registrar, registrarInput, order.id),
    };
  }

  private async planRenewal(reseller: OrderingReseller, command: RenewCommand): Promise<Plan> {
    const { domain, tld } = await this.catalogue.resolveDomain(reseller.groupId, command.domain);
    const existing = await this.uow.read.domains.findByName(domain.ascii);
    if (!existing || existing.resellerId !== reseller.id) throw notOwned(domain.unicode);
    this.assertRegistrarAvailable(existing.registrar, domain.unicode);
    // docs/orders.md#addons-turned-on-later: a renewal renews the addons the domain has, at their
    // prices, and only those: it turns nothing on, so an addon the request names that the domain
    // lacks is neither charged nor enabled (billing modules send their own record's flags).
    const addons = heldAddons(existing.addons);
    const notHeld = enabledAddons(command.addons).filter((addon) => !addons.includes(addon));
    if (notHeld.length > 0)
      this.logger.info(
        { domain: domain.ascii, addons: notHeld },
        'renewal: addons asked for that the domain does not have are not charged or turned on',
      );
    const charge = await this.catalogueCharge(reseller, 'renew', tld, command.period, addons);
    // Asked last: a renewal refused for its own input costs no registrar call.
    const premium = await this.premiumPriceOf(reseller, 'renew', existing.registrar, domain, command);
    const price = priceWith(charge, premium?.total);
    return {
      action: 'renew',
      domain,
      registrar: existing.registrar,
      period: command.period,
      price,
      originalVars: null,
      request: { addons, ...(command.idnLanguage && { idnLanguage: command.idnLanguage }) },
      call: (order) =>
        this.registrar.renew(
          order.registrar,
          {
            domain: domain.ascii,
            period: order.period,
            currentExpiryDate: order.priorDomain?.expiryDate ?? null,
            ...(premium && { premiumCost: premium.cost }),
          },
          order.id,
        ),
    };
  }

  /** A registrar whose plugin is gone could never answer: refuse before any money moves, not after. */
  private assertRegistrarAvailable(registrarId: string, domain: string): void {
    if (!this.registrar.isAvailable(registrarId)) {
      this.logger.error({ registrar: registrarId, domain }, 'order refused: the registrar plugin is not installed');
      throw new DomainError(
        'registrar_failed',
        `The registrar for ${domain} is not available at the moment; nothing was charged`,
      );
    }
  }

  /**
   * docs/orders.md#premium-names: the premium price of the order's name for its period (and the
   * registry's yearly cost it was made from, which the registrar is told it may charge), or
   * undefined when the catalogue price applies (not premium, or a registrar that cannot tell).
   * A premium name is sold only at the group's premium price, only to a request that accepts
   * at least that price; otherwise the order is refused before any money moves.
   */
  private async premiumPriceOf(
    reseller: OrderingReseller,
    action: OrderAction,
    registrarId: string,
    domain: RegistrableDomain,
    command: { readonly period: number; readonly premiumCost?: Minor },
  ): Promise<{ readonly total: Minor; readonly cost: Minor } | undefined> {
    const answer = await this.registrar.premium(registrarId, domain.ascii);
    if (answer.kind === 'standard' || answer.kind === 'cannot_tell') return undefined;
    if (answer.kind === 'unknown')
      throw new DomainError(
        'registrar_failed',
        `Could not learn from the registrar whether ${domain.unicode} is a premium name (${answer.message}); nothing was charged`,
      );
    const rule = await this.catalogue.premiumRule(reseller.groupId);
    if (!rule)
      throw new DomainError(
        'not_offered',
        `${domain.unicode} is a premium name; premium names are not sold to your account; nothing was charged`,
      );
    const cost = answer.cost[action];
    const yearly = cost === undefined ? undefined : premiumPrice(rule, cost);
    if (yearly === undefined)
      throw new DomainError(
        'not_offered',
        `${domain.unicode} is a premium name and has no premium ${NOUN[action]} price for your account; nothing was charged`,
      );
    const total = yearly * command.period;
    if (command.premiumCost === undefined || command.premiumCost < total)
      throw new DomainError(
        'validation_failed',
        `${domain.unicode} is a premium name: the ${NOUN[action]} for ${command.period} year(s) costs ${formatAmount(total)}` +
          `${command.premiumCost === undefined ? '' : `, more than the premiumCost ${formatAmount(command.premiumCost)} sent`}` +
          `; send premiumEnabled=1 and premiumCost=${formatAmount(total)} to accept it; nothing was charged`,
      );
    return { total, cost: cost! };
  }

  /**
   * What the catalogue charges for the period: the name's price, and each enabled addon's yearly
   * price times the period. Refuses a period the catalogue does not sell, premium names included.
   */
  private async catalogueCharge(
    reseller: OrderingReseller,
    action: OrderAction,
    tld: Tld,
    period: number,
    addons: readonly AddonName[],
  ): Promise<CatalogueCharge> {
    if (!Number.isInteger(period) || period < MIN_PERIOD || period > MAX_PERIOD) {
      throw new DomainError(
        'validation_failed',
        `regperiod must be a whole number of years from ${MIN_PERIOD} to ${MAX_PERIOD}`,
      );
    }
    const prices = await this.catalogue.priceList(reseller.groupId, tld.tld, action);
    if (prices.size === 0) throw new DomainError('not_offered', `${NOUN[action]} is not offered for ${tld.tld}`);
    const base = prices.get(period);
    if (base === undefined)
      throw new DomainError(
        'validation_failed',
        `regperiod must be one of ${[...prices.keys()].join(', ')} for ${action} of ${tld.tld}`,
      );
    const addonPrices = await this.catalogue.addonPrices(reseller.groupId);
    return { name: base, addons: addons.reduce((sum, addon) => sum + (addonPrices.get(addon) ?? 0) * period, 0) };
  }
}

interface CatalogueCharge {
  readonly name: Minor;
  readonly addons: Minor;
}

/** The order's price: the premium price for the name when it is premium, else the catalogue's; addons at the catalogue's. */
function priceWith(charge: CatalogueCharge, premium: Minor | undefined): Minor {
  return (premium ?? charge.name) + charge.addons;
}

/** Where a transfer stands, as the order flow settles on it: reconciliation and transfer sync alike. */
function transferVerdict(status: TransferStatus, source: 'reconciled' | 'transfer sync'): Verdict {
  switch (status.kind) {
    case 'completed':
      return {
        kind: 'complete',
        expiryDate: isIsoDate(status.expiryDate) ? status.expiryDate : null,
        note: `${source}: the transfer completed`,
        fromRegistrar: isIsoDate(status.expiryDate),
      };
    case 'failed':
      return { kind: 'refund', note: `${source}: the transfer failed: ${status.reason}` };
    case 'not_found':
      // Asked only once the order's lease has run out: a request the registrar received by then, it has recorded.
      return { kind: 'refund', note: `${source}: the registrar has no transfer of this name: ${status.message}` };
    case 'in_progress':
      return { kind: 'leave', note: `${source}: the transfer is still in progress at the registry` };
    default:
      return {
        kind: 'leave',
        note: `${source === 'reconciled' ? 'reconciliation' : source} could not tell: ${status.message}`,
      };
  }
}

function enabledAddons(addons: Readonly<Record<string, boolean>>): AddonName[] {
  for (const name of Object.keys(addons)) {
    if (!ADDONS.includes(name as AddonName))
      throw new DomainError(
        'validation_failed',
        `addons: unknown addon "${name.slice(0, 40)}"; addons are ${ADDONS.join(', ')}`,
      );
  }
  return ADDONS.filter((a) => addons[a] === true);
}

/** docs/api.md#nameservers-field: ns1 and ns2 required, at most five; host names normalised like domains. */
function checkNameservers(raw: readonly string[]): string[] {
  const nameservers = raw.map((ns, i) => {
    try {
      return parseDomainName(ns).ascii;
    } catch {
      throw new DomainError(
        'validation_failed',
        `nameservers: ns${i + 1} "${String(ns).slice(0, 80)}" is not a valid host name`,
      );
    }
  });
  if (nameservers.length < 2) throw new DomainError('validation_failed', 'nameservers: ns1 and ns2 are required');
  if (nameservers.length > 5) throw new DomainError('validation_failed', 'nameservers: at most 5 (ns1 to ns5)');
  if (new Set(nameservers).size !== nameservers.length)
    throw new DomainError('validation_failed', 'nameservers: the same nameserver is listed twice');
  return [...nameservers];
}

function checkOriginalVars(text: string | undefined): string | null {
  if (text === undefined) return null;
  if (new TextEncoder().encode(text).length > MAX_ORIGINAL_VARS)
    throw new DomainError('validation_failed', `originalvars is larger than ${MAX_ORIGINAL_VARS / 1024} KiB`);
  return text;
}

function answerOf(answer: IdempotentAnswer): 'success' {
  if (answer.ok) return 'success';
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

const inProgress = (domain: string) => new DomainError('conflict', `An order for ${domain} is already in progress`);
// The same words as every {domain} route (docs/domain-management.md): one answer for "not yours" across the whole API.
const notOwned = (domain: string) => new DomainError('not_owned', `The domain ${domain} is not in your account`);
const notRenewable = (domain: string, status: DomainStatus) =>
  new DomainError('validation_failed', `${domain} is ${status}; only Active, Expired or Grace domains can be renewed`);
const keyInFlight = () =>
  new DomainError('conflict', 'A request with this Idempotency-Key is still in progress; retry later');
