import type { Contacts } from '../registrar/plugin';

/** A registration as the HTTP adapter hands it over: wire formats already decoded, not yet checked against the catalogue. */
export interface RegisterCommand {
  readonly domain: string;
  readonly period: number;
  readonly nameservers: readonly string[];
  /** Fields folded to the lower-case names; the registrant may be missing when the group has a default. */
  readonly contacts: Contacts;
  /** Addon name → enabled. */
  readonly addons: Readonly<Record<string, boolean>>;
  /** Decoded `domainfields`. */
  readonly fields: Readonly<Record<string, unknown>>;
  readonly idnLanguage?: string;
  /** `originalvars` as received, serialised to JSON text; stored, never interpreted. */
  readonly originalVars?: string;
}

export interface TransferCommand extends RegisterCommand {
  readonly eppCode: string;
}

export interface RenewCommand {
  readonly domain: string;
  readonly period: number;
  readonly addons: Readonly<Record<string, boolean>>;
  readonly idnLanguage?: string;
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
