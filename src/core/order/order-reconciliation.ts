import type { AuditRecord } from '../audit/audit-log';
import { formatAmount } from '../common/money';
import { ulid } from '../common/ids';
import type { OrderAction } from '../catalogue/catalogue';
import type { DomainRecord } from '../domain/domain';
import type { TransferHandOver, TransferOrders, TransferOutcome } from '../domain/domain-sync-service';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import type { Logger } from '../common/logger';
import type { UnitOfWork } from '../common/unit-of-work';
import { addYears, isIsoDate } from './dates';
import { registrarMessage } from './gateway-order-registrar';
import type { Order } from './order';
import type { OrderSettlement, Verdict } from './order-settlement';
import type { OrderRegistrar, TransferStatus } from './order-registrar';
import type { OrderSettings } from './order-settings';

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

const DAY_MS = 86_400_000;
/** How an order handed to the operator is marked in its note (and so in `order list`). */
export const OPERATOR_NOTE = 'needs the operator';
const DOMAIN_CHANGED =
  'not refunded: the domain changed while the order was open (the name was ours); settle it with `order settle`';

/**
 * Settling orders after their request path: reconciliation's passes over pending orders the
 * registrar left unanswered, the operator's `order settle`, and transfer sync's hand-over of a
 * transfer's outcome. Each asks or is told what happened and settles through the one
 * settlement (each move a conditional update from pending, so whoever settles first wins).
 */
export class OrderReconciliation implements TransferOrders {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly registrar: OrderRegistrar,
    private readonly settlement: OrderSettlement,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: OrderSettings,
  ) {}

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
    const expiryDate = decision.expiryDate ?? this.settlement.expiryAfter(order, undefined);
    const audit: AuditRecord = {
      action: `order.settle.${decision.outcome}`,
      subject: { kind: 'order', id: order.id },
      before: { status: order.status, domain: order.domain, action: order.action },
      after: {
        status: decision.outcome === 'complete' ? 'completed' : 'failed',
        note,
        price: formatAmount(order.price),
        ...(decision.outcome === 'complete' && { expiryDate }),
      },
    };
    const settled =
      decision.outcome === 'complete'
        ? await this.settlement.complete(order, expiryDate, `operator: ${note}`, { fromRegistrar: false, audit })
        : await this.settlement.refund(order, `operator: ${note}`, 'operator', undefined, audit);
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
