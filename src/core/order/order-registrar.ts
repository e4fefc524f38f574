import type { NamePrice } from '../registrar/registrar-gateway';
import type { CapabilityName, RegisterInput, RenewInput, TransferInput } from '../registrar/plugin';

/**
 * What the order flow needs of registrars, and nothing more. A small port so the ordering core
 * does not depend on how registrar calls are made (deadlines, answer checks, faults); it is
 * implemented over the guarded registrars (`GatewayOrderRegistrar`), and a host may rebind it.
 */
export interface OrderRegistrar {
  /** Whether orders can be sent to this registrar at all (its plugin is installed). */
  isAvailable(registrarId: string): boolean;
  /** Whether its plugin failed to load and is disabled (orders then answer 503 naming it). */
  isDisabled(registrarId: string): boolean;
  supports(registrarId: string, capability: CapabilityName): boolean;
  register(registrarId: string, input: RegistrationRequest, transactionId: string): Promise<RegistrarAnswer>;
  transfer(registrarId: string, input: TransferRequest, transactionId: string): Promise<RegistrarAnswer>;
  renew(registrarId: string, input: RenewalRequest, transactionId: string): Promise<RegistrarAnswer>;
  /** Is the domain registered, and in our account? Used by reconciliation. */
  lookup(registrarId: string, domain: string): Promise<DomainLookup>;
  /** Where a transfer in stands. Used by reconciliation of transfer orders. */
  transferStatus(registrarId: string, domain: string): Promise<TransferStatus>;
  /**
   * Is the name premium, and at what cost, for this action and period? Asked before every order
   * (docs/orders.md#premium-names). Without a question, a registration for a year.
   */
  premium(registrarId: string, domain: string, question?: PremiumQuestion): Promise<PremiumAnswer>;
}

/** What an order asks the price of: a renewal or transfer of a registered name is priced as such. */
export interface PremiumQuestion {
  readonly action: 'register' | 'renew' | 'transfer';
  readonly period: number;
}

/**
 * What the registrar says of a name's premium status, asked at order time:
 * - `standard`: not premium; the catalogue price applies;
 * - `premium`: premium, with the registry's costs in minor units (an action without a cost cannot be priced);
 * - `cannot_tell`: the registrar gave no premium flag (it does not report premium names, or the name
 *   is registered and it has no `domainPricing`): the catalogue price, unless the platform sold the
 *   name as premium (then the order is refused);
 * - `unknown`: the registrar did not answer; the order is refused, nothing charged.
 */
export type PremiumAnswer =
  | Exclude<NamePrice, { readonly kind: 'no_answer' }>
  | { readonly kind: 'unknown'; readonly message: string };

/** The order flow sends registrars exactly what the plugin contract takes. */
export type RegistrationRequest = RegisterInput;
export type TransferRequest = TransferInput;
export type RenewalRequest = RenewInput;

/**
 * The three outcomes that matter for money:
 * - `done`: the registrar did it (an expiry date when it told us one);
 * - `refused`: a definite no, nothing happened at the registry: refund;
 * - `unknown`: no answer by the deadline, a fault, or "accepted, finishing later": keep the money
 *   reserved and let reconciliation find out.
 */
export type RegistrarAnswer =
  | { readonly kind: 'done'; readonly expiryDate?: string }
  | { readonly kind: 'refused'; readonly reason: 'unavailable' | 'refused'; readonly message: string }
  | { readonly kind: 'unknown'; readonly message: string };

export type DomainLookup =
  | { readonly kind: 'ours'; readonly expiryDate?: string }
  /** Not registered at all, or registered by someone else. */
  | { readonly kind: 'not_ours' }
  | { readonly kind: 'unknown'; readonly message: string };

export type TransferStatus =
  | { readonly kind: 'completed'; readonly expiryDate?: string }
  | { readonly kind: 'failed'; readonly reason: string }
  /** The registrar says it has no transfer of this name (it refused the transfer query): it never received one. */
  | { readonly kind: 'not_found'; readonly message: string }
  | { readonly kind: 'in_progress' }
  | { readonly kind: 'unknown'; readonly message: string };
