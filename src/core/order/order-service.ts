import type { CatalogueService } from '../catalogue/catalogue-service';
import type { DomainRecord } from '../domain/domain';
import type { TransferHandOver, TransferOrders, TransferOutcome } from '../domain/domain-sync-service';
import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import type { UnitOfWork } from '../common/unit-of-work';
import type { SecretBox } from '../reseller/reseller';
import type { Order, OrderListFilter } from './order';
import type {
  OrderingReseller,
  OrderOptions,
  PlacedOrder,
  RegisterCommand,
  RenewCommand,
  TransferCommand,
} from './order-commands';
import { OrderPlacement } from './order-placement';
import { OrderPlanner } from './order-plan';
import { OrderReconciliation, type ReconcileReport } from './order-reconciliation';
import type { OrderRegistrar } from './order-registrar';
import { OrderSettlement } from './order-settlement';
import type { OrderSettings } from './order-settings';

export { OPERATOR_NOTE, type ReconciledOrder, type ReconcileReport } from './order-reconciliation';
export type { OrderSettings } from './order-settings';

/** What the order flow is built from (src/container.ts names each once). */
export interface OrderDependencies {
  readonly uow: UnitOfWork;
  readonly registrar: OrderRegistrar;
  readonly catalogue: CatalogueService;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly settings: OrderSettings;
  /** Keys the Idempotency-Key fingerprints (the master key's box). */
  readonly secrets: Pick<SecretBox, 'mac'>;
}

/**
 * Orders paid from prepaid credit, as hosts, routes and the CLI see them (`services.orders`): a
 * facade over the parts, each in its own file:
 *
 * - placement (order-placement.ts): the money path of register, renew and transfer, top to bottom;
 * - planning (order-plan.ts): pricing, premium names, addons, nameservers and contacts, read-only;
 * - reconciliation (order-reconciliation.ts): pending orders settled afterwards, by the background
 *   pass, by the operator, or from what transfer sync learnt;
 * - settlement (order-settlement.ts): the one way an order completes or is refunded, used by all three.
 */
export class OrderService implements TransferOrders {
  constructor(
    private readonly placement: OrderPlacement,
    private readonly reconciliation: OrderReconciliation,
    private readonly uow: UnitOfWork,
  ) {}

  /** docs/api.md#register-a-domain. Resolves with the order (its id and status) once registration is done or started; throws DomainError otherwise. */
  register(reseller: OrderingReseller, command: RegisterCommand, options: OrderOptions = {}): Promise<PlacedOrder> {
    return this.placement.register(reseller, command, options);
  }

  /** docs/api.md#transfer-a-domain-in: the register body plus the EPP code. */
  transfer(reseller: OrderingReseller, command: TransferCommand, options: OrderOptions = {}): Promise<PlacedOrder> {
    return this.placement.transfer(reseller, command, options);
  }

  /** docs/api.md#renew-a-domain. */
  renew(reseller: OrderingReseller, command: RenewCommand, options: OrderOptions = {}): Promise<PlacedOrder> {
    return this.placement.renew(reseller, command, options);
  }

  get(id: string): Promise<Order | undefined> {
    return this.uow.read.orders.findById(id);
  }

  list(filter: OrderListFilter = {}): Promise<Order[]> {
    return this.uow.read.orders.list(filter);
  }

  /** One reconciliation pass over pending orders whose request path is over (docs/orders.md#reconciliation). */
  reconcile(options: { limit?: number; owner?: string; signal?: AbortSignal } = {}): Promise<ReconcileReport> {
    return this.reconciliation.reconcile(options);
  }

  /** `reseller-admin order settle`: the operator completes or refunds a pending order. */
  settleByOperator(
    orderId: string,
    decision: { readonly outcome: 'complete' | 'refund'; readonly note: string; readonly expiryDate?: string },
  ): Promise<Order> {
    return this.reconciliation.settleByOperator(orderId, decision);
  }

  /** Transfer sync hands over what it learnt about a domain's transfer (docs/domain-management.md). */
  settleTransfer(domain: DomainRecord, outcome: TransferOutcome): Promise<TransferHandOver> {
    return this.reconciliation.settleTransfer(domain, outcome);
  }
}

/** The order flow wired from its dependencies: the one place its parts are put together. */
export function createOrderService({
  uow,
  registrar,
  catalogue,
  clock,
  logger,
  settings,
  secrets,
}: OrderDependencies): OrderService {
  const settlement = new OrderSettlement(uow, clock, logger, settings);
  const planner = new OrderPlanner(uow, registrar, catalogue, logger, clock);
  return new OrderService(
    new OrderPlacement(uow, planner, settlement, clock, logger, settings, secrets),
    new OrderReconciliation(uow, registrar, settlement, clock, logger, settings),
    uow,
  );
}
