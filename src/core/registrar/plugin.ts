/**
 * The registrar plugin contract: a small required part (availability, register, renew) plus
 * optional capability groups added by later work. Plugins return expected registrar answers as
 * values and throw only for faults.
 */
export const PLUGIN_API_VERSION = 1;

export interface CallContext {
  /** Aborted at the registrar deadline (`REGISTRAR_TIMEOUT_MS`); long calls must stop when it fires. */
  readonly signal: AbortSignal;
}

export type AvailabilityStatus = 'available' | 'registered' | 'reserved' | 'unknown';

export interface AvailabilityResult {
  readonly domain: string;
  readonly status: AvailabilityStatus;
  readonly isPremium?: boolean;
  /** Premium price in minor units, per year, when the registry charges one. */
  readonly premiumPrice?: number;
}

export interface Contact {
  readonly [field: string]: string;
}

export interface RegisterInput {
  readonly domain: string;
  readonly period: number;
  readonly nameservers: readonly string[];
  readonly contacts: Readonly<Record<string, Contact>>;
  readonly addons: Readonly<Record<string, boolean>>;
  readonly fields: Readonly<Record<string, unknown>>;
}

export interface RenewInput {
  readonly domain: string;
  readonly period: number;
  /** YYYY-MM-DD as the platform holds it; registries ask for it on renew. */
  readonly currentExpiryDate: string | null;
}

export type RegistrarOutcome<T> =
  | ({ readonly ok: true } & T)
  | { readonly ok: false; readonly reason: 'unavailable' | 'refused' | 'pending'; readonly message: string };

export interface Registered { readonly expiryDate: string }

export interface RegistrarPlugin {
  readonly id: string;
  checkAvailability(domains: readonly string[], ctx: CallContext): Promise<AvailabilityResult[]>;
  register(input: RegisterInput, ctx: CallContext): Promise<RegistrarOutcome<Registered>>;
  renew(input: RenewInput, ctx: CallContext): Promise<RegistrarOutcome<Registered>>;
  /** Called once on shutdown. */
  close?(): Promise<void>;
}

/** What the platform hands a plugin when it creates it. */
export interface PluginHost {
  readonly logger: import('../shared/logger').Logger;
  readonly clock: import('../shared/clock').Clock;
}

const DEFINITION = Symbol.for('reseller/RegistrarPluginDefinition');

export interface RegistrarPluginDefinition<Options = Record<string, unknown>> {
  readonly [DEFINITION]: true;
  readonly id: string;
  readonly apiVersion: number;
  /** Checks and normalises the plugin's options; throws an Error naming the bad option. */
  parseOptions(raw: Record<string, unknown>): Options;
  create(options: Options, host: PluginHost): RegistrarPlugin | Promise<RegistrarPlugin>;
}

/** The one default export of a plugin's entry module. */
export function defineRegistrarPlugin<Options>(definition: Omit<RegistrarPluginDefinition<Options>, typeof DEFINITION>): RegistrarPluginDefinition<Options> {
  return { ...definition, [DEFINITION]: true };
}

/** Recognised by brand: a plugin may bundle its own copy of this module. */
export function isRegistrarPluginDefinition(value: unknown): value is RegistrarPluginDefinition<unknown> {
  return typeof value === 'object' && value !== null && (value as Record<symbol, unknown>)[DEFINITION] === true;
}
