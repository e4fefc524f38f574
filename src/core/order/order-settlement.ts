import { type AuditRecord, auditEntry } from '../audit/audit-log';
import type { OrderAction } from '../catalogue/catalogue';
import { creditChanged } from '../credit/credit-service';
import { postWithBalance, type LedgerEntry } from '../credit/ledger';
import type { DomainStatus } from '../domain/domain';
import type { Clock } from '../common/clock';
import { DomainError } from '../common/errors';
import { ulid } from '../common/ids';
import type { Logger } from '../common/logger';
import { formatAmount } from '../common/money';
import type { Repositories, UnitOfWork } from '../common/unit-of-work';
import { addYears, isIsoDate, isoDay } from './dates';
import type { IdempotentAnswer, Order } from './order';
import { runAndPublish, statusChanged, type Outbox } from './outbox';
import { isRenewable, PENDING_STATUS_OF, statusesWhere } from '../domain/domain-lifecycle';

/** Who settles an order: the request that placed it, reconciliation, transfer sync or the operator. */
export type SettledBy = 'request' | 'reconciliation' | 'transfer sync' | 'operator';

/** What is known about a pending order, and so what becomes of it. */
export type Verdict =
  | {
      readonly kind: 'complete';
      readonly expiryDate: string | null;
      readonly note: string;
      /** The expiry is the registrar's own answer (not one worked out here, nor the operator's word). */
      readonly fromRegistrar: boolean;
    }
  | { readonly kind: 'refund'; readonly note: string }
  | { readonly kind: 'leave'; readonly note: string };

/**
 * What a settlement did:
 * - `completed`, `refunded`: this call moved the order from pending;
 * - `settled_already`: another party settled it first; nothing was written;
 * - `domain_changed`: a refund found the domain no longer as the order left it (the reseller acted
 *   on it, or it left the platform): nothing was written, the order stays pending for the operator.
 */
export type SettleResult = 'completed' | 'refunded' | 'settled_already' | 'domain_changed';

export interface SettlementSettings {
  /** The registrar deadline; a lease for a registrar call covers it. */
  readonly registrarTimeoutMs: number;
  /** How long after a lease reconciliation waits before asking again; doubled per unresolved attempt. */
  readonly reconcileAfterMs: number;
}

export const NOUN: Record<OrderAction, string> = { register: 'registration', renew: 'renewal', transfer: 'transfer' };

/** docs/api.md#renew-a-domain: the statuses a renewal may start from (and settles from). */
const RENEWABLE_STATUSES = statusesWhere('isRenewable');
/** The lease owner of the request path that placed an order (`request:<order id>`). */
export const REQUEST_LEASE = 'request:';
/** The longest reconciliation waits between two questions about one order (the backoff's ceiling). */
export const MAX_RECONCILE_BACKOFF_MS = 6 * 3_600_000;

/**
 * The one place an order settles (docs/orders.md). A small state machine over the order and its
 * domain, used alike by the request path, reconciliation, transfer sync and the operator's
 * `order settle`:
 *
 * - complete: order pending → completed; a register/transfer domain Pending … → Active, a renewed
 *   domain Active/Expired/Grace → Active, with the expiry.
 * - refund: order pending → failed, the price refunded in full; a register/transfer domain goes
 *   back as it was when the request path hears the refusal (removed, or the row it took over
 *   restored), and becomes Cancelled, kept for the ordering reseller, when refunded later; a
 *   renewed domain is unchanged.
 * - leave: the order stays pending with a note; reconciliation asks again after a backoff.
 *
 * Every move is one transaction of the same statements on every engine: a conditional update of
 * the order from `pending` (so whoever settles first wins and the others change nothing), its
 * domain, the refund's ledger entry and the Idempotency-Key's answer. Events are recorded in the
 * same transaction's outbox. (On MariaDB some travel two to a round trip: ADR 14.)
 */
export class OrderSettlement {
  constructor(
    private readonly uow: UnitOfWork,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly settings: SettlementSettings,
  ) {}

  /** Settles on a verdict: complete, refund or leave pending (noting what was learnt). */
  async apply(
    order: Order,
    verdict: Verdict,
    by: SettledBy,
    answer?: IdempotentAnswer,
  ): Promise<SettleResult | 'left'> {
    if (verdict.kind === 'complete')
      return this.complete(order, verdict.expiryDate, verdict.note, { fromRegistrar: verdict.fromRegistrar });
    if (verdict.kind === 'refund') return this.refund(order, verdict.note, by, answer);
    await this.leave(order, verdict.note, { reconcileAttempt: by === 'reconciliation' });
    return 'left';
  }

  /**
   * pending → completed, and the domain Active with the expiry. When the expiry is the registrar's
   * own answer, the domain is stamped synced as well: the registrar has just said what sync would
   * ask, so domain sync next asks a sync interval later instead of at its next pass (which, after
   * a busy hour, was a registrar call for every name just sold). An expiry worked out here, or the
   * operator's word, leaves the domain due for a sync at once.
   */
  complete(
    order: Order,
    expiryDate: string | null,
    note: string,
    { fromRegistrar, audit }: { readonly fromRegistrar: boolean; readonly audit?: AuditRecord },
  ): Promise<SettleResult> {
    const at = this.clock.now();
    return this.runAndPublish(async (repos, outbox) => {
      const settlement = { id: order.id, to: 'completed' as const, change: { expiryDate, note, at } };
      const domain = {
        id: order.domainId,
        from: order.action === 'renew' ? RENEWABLE_STATUSES : [PENDING_STATUS_OF[order.action]],
        change: { status: 'Active' as const, expiryDate, at, ...(fromRegistrar && { syncedAt: at }) },
        ...(order.action === 'renew' && { resellerId: order.resellerId }),
      };
      // Both in one round trip where the connection allows; the domain's move is then undone
      // with the rest of the transaction when the order was settled already.
      const together = await repos.orders.settleWithDomain?.(settlement, domain);
      if (together && !together.settled) throw new SettledAlready();
      if (!together && !(await repos.orders.settle(settlement.id, settlement.to, settlement.change)))
        return 'settled_already';
      const moved =
        together?.domainMoved ??
        (await repos.domains.transitionForOrder(domain.id, domain.from, domain.change, domain.resellerId));
      // The operator's decision is audited with the settlement it made, in its transaction.
      if (audit) await repos.audit.append(auditEntry(audit, at));
      if (!moved)
        this.logger.warn(
          { orderId: order.id, domain: order.domain },
          'order completed but the domain had left the expected state; domain left as it is',
        );
      if (order.idempotencyKey !== null) await repos.idempotency.finishForOrder(order.id, { ok: true });
      outbox.push({
        name: 'order.completed',
        event: {
          orderId: order.id,
          resellerId: order.resellerId,
          action: order.action,
          domain: order.domain,
          expiryDate,
          at,
        },
      });
      if (moved) {
        const before = order.action === 'renew' ? (order.priorDomain?.status ?? null) : PENDING_STATUS_OF[order.action];
        statusChanged(outbox, order, order.resellerId, before, 'Active', at);
      }
      return 'completed';
    }).catch((error: unknown) => {
      if (error instanceof SettledAlready) return 'settled_already' as const;
      throw error;
    });
  }

  /**
   * pending → failed with the price refunded in full. The domain of a register or transfer goes
   * back as it was when the request path heard the refusal (the reseller was told it failed);
   * when the order is refunded later (the reseller was told "success"), it stays in the
   * reseller's account as Cancelled, so that sync and information can say the name is not
   * registered (issue 13 item 3). Reconciliation and transfer sync never refund an order whose
   * domain is no longer as the order left it: the reseller acted on it, so the name was ours.
   */
  refund(
    order: Order,
    note: string,
    by: SettledBy,
    answer?: IdempotentAnswer,
    audit?: AuditRecord,
  ): Promise<SettleResult> {
    const at = this.clock.now();
    const guarded = by === 'reconciliation' || by === 'transfer sync';
    return this.runAndPublish(async (repos, outbox) => {
      if (!(await repos.orders.settle(order.id, 'failed', { note, at }))) return 'settled_already';
      if (audit) await repos.audit.append(auditEntry(audit, at));
      let domainMoved: { from: DomainStatus; to: DomainStatus; resellerId: string } | 'removed' | undefined;
      if (order.action === 'renew') {
        if (guarded) {
          const domain = await repos.domains.findByName(order.domain);
          const asLeft =
            domain?.id === order.domainId && domain.resellerId === order.resellerId && isRenewable(domain.status);
          // Rolls the order back to pending with the rest of this transaction.
          if (!asLeft) throw new DomainChanged();
        }
      } else {
        const pending = PENDING_STATUS_OF[order.action];
        const prior = order.priorDomain;
        if (by === 'request') {
          const restored = prior
            ? await repos.domains.transitionForOrder(order.domainId, [pending], {
                status: prior.status,
                resellerId: prior.resellerId,
                registrar: prior.registrar,
                expiryDate: prior.expiryDate,
                at,
              })
            : await repos.domains.deleteForFailedOrder(order.domainId, pending);
          if (restored)
            domainMoved = prior ? { from: pending, to: prior.status, resellerId: prior.resellerId } : 'removed';
        } else {
          const cancelled = await repos.domains.transitionForOrder(
            order.domainId,
            [pending],
            { status: 'Cancelled', resellerId: order.resellerId, expiryDate: null, at },
            guarded ? order.resellerId : undefined,
          );
          if (cancelled) domainMoved = { from: pending, to: 'Cancelled', resellerId: order.resellerId };
          else if (guarded) throw new DomainChanged();
        }
        if (!domainMoved)
          this.logger.warn(
            { orderId: order.id, domain: order.domain },
            'order failed but its domain had left the pending state; domain left as it is',
          );
      }
      const refund: LedgerEntry = {
        id: ulid(),
        resellerId: order.resellerId,
        amount: order.price,
        kind: 'order_refund',
        orderId: order.id,
        note: `refund: ${NOUN[order.action]} of ${order.domain} did not happen`,
        createdAt: at,
      };
      const balance = await postWithBalance(repos.ledger, refund);
      if (balance === null) throw new Error(`refund of order ${order.id} could not be posted`);
      if (order.idempotencyKey !== null) {
        await repos.idempotency.finishForOrder(
          order.id,
          answer ?? {
            ok: false,
            code: 'registrar_failed',
            message: `The ${NOUN[order.action]} of ${order.domain} did not go through at the registrar; ${formatAmount(order.price)} was refunded`,
          },
        );
      }
      outbox.push({
        // The caller of the request hears of the failure in its answer; any later refund undoes
        // an order the reseller was told is under way.
        name: by === 'request' ? 'order.failed' : 'order.refunded',
        event: {
          orderId: order.id,
          resellerId: order.resellerId,
          action: order.action,
          domain: order.domain,
          reason: note,
          refunded: order.price,
          at,
        },
      });
      outbox.push({ name: 'credit.changed', event: creditChanged(refund, balance) });
      // A row the order created and removed has no status to report.
      if (domainMoved && domainMoved !== 'removed')
        statusChanged(outbox, order, domainMoved.resellerId, domainMoved.from, domainMoved.to, at);
      return 'refunded';
    }).catch((error: unknown) => {
      if (error instanceof DomainChanged) return 'domain_changed' as const;
      throw error;
    });
  }

  /**
   * The order stays pending: records what was learnt. A reconciliation attempt also sets when it
   * is asked about next: `reconcileAfterMs` doubled per unresolved attempt, at most
   * `MAX_RECONCILE_BACKOFF_MS`, so a registrar that cannot answer is not called every pass.
   * `answer` finishes the Idempotency-Key (the request path's "success, started").
   */
  leave(
    order: Order,
    note: string,
    options: { reconcileAttempt: boolean; answer?: IdempotentAnswer; needsOperator?: boolean },
  ): Promise<void> {
    const at = this.clock.now();
    const leaseUntil = options.reconcileAttempt
      ? new Date(at.getTime() + this.settings.registrarTimeoutMs + this.backoffMs(order.reconcileAttempts + 1))
      : undefined;
    return this.uow.run(async (repos) => {
      if (options.needsOperator)
        repos.outbox.push({
          name: 'order.needs_operator',
          event: {
            orderId: order.id,
            resellerId: order.resellerId,
            action: order.action,
            domain: order.domain,
            pendingDays: Math.floor((at.getTime() - order.createdAt.getTime()) / 86_400_000),
            note,
            at,
          },
        });
      await repos.orders.notePending(order.id, {
        note,
        at,
        isReconcileAttempt: options.reconcileAttempt,
        ...(leaseUntil && { leaseUntil }),
      });
      if (options.answer && order.idempotencyKey !== null)
        await repos.idempotency.finishForOrder(order.id, options.answer);
    });
  }

  /**
   * Refuses an operator's settlement the order contradicts, before anything is written
   * (docs/orders.md#settling-by-hand):
   * - while the request that placed the order holds its lease: its registrar call may still be
   *   running (or the registry still acting on one cut off at the deadline), so a refund could
   *   leave the name registered unpaid and a completion could keep a name never registered; the
   *   operator waits as reconciliation does (a reconciler's lease is no such reason: it only asks);
   * - a completion's expiry in the past, and a renewal's expiry not after the one it renewed.
   */
  assertOperatorMay(
    order: Order,
    decision: { readonly outcome: 'complete' | 'refund'; readonly expiryDate?: string },
  ): void {
    const now = this.clock.now();
    if (order.leaseOwner?.startsWith(REQUEST_LEASE) && order.leaseUntil && order.leaseUntil > now) {
      const seconds = Math.ceil((order.leaseUntil.getTime() - now.getTime()) / 1000);
      throw new DomainError(
        'conflict',
        `Order ${order.id}: the request that placed it may still be waiting for the registrar (its lease runs until ` +
          `${order.leaseUntil.toISOString()}, ${seconds} s from now); settle it after that; nothing was changed`,
      );
    }
    const expiry = decision.outcome === 'complete' ? decision.expiryDate : undefined;
    if (expiry === undefined) return;
    const before = order.action === 'renew' ? order.priorDomain?.expiryDate : null;
    if (before && expiry <= before)
      throw new DomainError(
        'validation_failed',
        `the expiry date ${expiry} is not after the domain's expiry before the renewal (${before}); a renewal moves it later; nothing was changed`,
      );
    const today = isoDay(now);
    if (expiry < today)
      throw new DomainError(
        'validation_failed',
        `the expiry date ${expiry} is in the past (today is ${today}); a completed ${NOUN[order.action]} expires in the future; nothing was changed`,
      );
  }

  /** How long reconciliation waits after its `attempt`-th unresolved question about an order. */
  backoffMs(attempt: number): number {
    const doubled = this.settings.reconcileAfterMs * 2 ** Math.min(Math.max(attempt - 1, 0), 20);
    return Math.max(this.settings.reconcileAfterMs, Math.min(doubled, MAX_RECONCILE_BACKOFF_MS));
  }

  /** The registrar's expiry when it gave a real date; otherwise the period counted from what we know. */
  expiryAfter(order: Order, reported: string | undefined): string | null {
    if (isIsoDate(reported)) return reported;
    if (order.action === 'renew')
      return order.priorDomain?.expiryDate ? addYears(order.priorDomain.expiryDate, order.period) : null;
    return addYears(isoDay(order.createdAt), order.period);
  }

  private runAndPublish<T>(work: (repos: Repositories, outbox: Outbox) => Promise<T>): Promise<T> {
    return runAndPublish(this.uow, work);
  }
}

/** Raised inside a completion's transaction when the order was settled first by another party: nothing is written. */
class SettledAlready extends Error {}

/** Raised inside a refund's transaction when the domain is no longer as the order left it: nothing is written. */
class DomainChanged extends Error {}
