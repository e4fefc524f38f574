import type { Minor } from '../common/money';
import type { RegisterInput } from '../registrar/plugin';
import type { OrderStatus } from './order';

/**
 * A registration as the HTTP adapter hands it over: wire formats already decoded (contact fields
 * folded to the lower-case names, `domainfields` decoded), not yet checked against the catalogue.
 * The registrant may be missing when the group has a default.
 */
export interface RegisterCommand extends RegisterInput {
  /** `originalvars` as received, serialised to JSON text; stored, never interpreted. */
  readonly originalVars?: string;
  /**
   * The price the client accepts for a premium name (WHMCS `premiumEnabled=1` with `premiumCost`),
   * in minor units; absent when the request does not accept premium prices (docs/orders.md#premium-names).
   */
  readonly premiumCost?: Minor;
}

export interface TransferCommand extends RegisterCommand {
  readonly eppCode: string;
}

export interface RenewCommand {
  readonly domain: string;
  readonly period: number;
  readonly addons: Readonly<Record<string, boolean>>;
  readonly idnLanguage?: string;
  /** As for a registration: the premium renewal price the client accepts. */
  readonly premiumCost?: Minor;
}

/** The reseller placing an order, as authentication found it. */
export interface OrderingReseller {
  readonly id: string;
  readonly groupId: string;
}

export interface OrderOptions {
  /** The `Idempotency-Key` header, when the client sent one. */
  readonly idempotencyKey?: string;
}

/**
 * What a register, renew or transfer answers when it does not throw: the order and its status
 * at the time of the answer (`pending` while the registrar or the registry has not finished). An
 * idempotent replay answers the first order's id with that order's status now.
 */
export interface PlacedOrder {
  readonly orderId: string;
  readonly status: OrderStatus;
}
