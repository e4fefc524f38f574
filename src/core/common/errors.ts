/**
 * Errors the core raises on purpose. The HTTP adapter maps each code to one status
 * (src/http/error-status.ts); a new code without a status does not compile.
 *
 * There is deliberately no "domain not found" code: a domain that does not exist and a
 * domain that belongs to another reseller are the same `not_owned`, so nothing leaks.
 */
export type ErrorCode =
  | 'validation_failed'
  | 'authentication_failed'
  | 'forbidden'
  | 'too_many_attempts'
  | 'not_offered'
  | 'insufficient_credit'
  | 'unavailable'
  | 'capability_missing'
  | 'not_owned'
  | 'conflict'
  | 'idempotency_mismatch'
  | 'registrar_failed'
  | 'registrar_timeout'
  /** The registrar's plugin failed to load and is disabled until the operator fixes it (503). */
  | 'registrar_disabled'
  | 'not_found';

const BRAND = Symbol.for('reseller/DomainError');

export class DomainError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: { retryAfterSeconds?: number; resellerId?: string } = {},
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'DomainError';
  }
}

/** Recognised by brand, not instanceof: plugins may bundle their own copy of the contract. */
export function isDomainError(error: unknown): error is DomainError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}

export const validationError = (message: string) => new DomainError('validation_failed', message);
