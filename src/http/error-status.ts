import type { ErrorCode } from '../core/common/errors';

/** One status per error code (docs/api.md#errors-and-status-codes); a new code without a status does not compile. */
export const STATUS: Record<ErrorCode, number> = {
  validation_failed: 400,
  not_offered: 400,
  insufficient_credit: 400,
  unavailable: 400,
  capability_missing: 400,
  not_found: 404,
  authentication_failed: 401,
  forbidden: 403,
  too_many_attempts: 429,
  not_owned: 409,
  conflict: 409,
  idempotency_mismatch: 422,
  registrar_failed: 502,
  registrar_timeout: 504,
  registrar_disabled: 503,
};
