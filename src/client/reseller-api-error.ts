const BRAND = Symbol.for('reseller/ResellerApiError');

/**
 * Why a call failed:
 * - `http`: the server answered with an error (`status` and the server's `error` message are set);
 * - `timeout`: no answer within the call's timeout;
 * - `aborted`: the caller's signal fired;
 * - `network`: no HTTP answer at all (connection refused or reset, DNS failure);
 * - `invalid_reply`: an answer that is not the documented shape.
 */
export type ResellerApiErrorKind = 'http' | 'timeout' | 'aborted' | 'network' | 'invalid_reply';

/** The one error the SDK throws. Recognise it with `isResellerApiError` (works across bundled copies). */
export class ResellerApiError extends Error {
  readonly [BRAND] = true;
  constructor(
    readonly kind: ResellerApiErrorKind,
    message: string,
    readonly details: {
      /** The operation, as `METHOD /path`. */
      readonly operation: string;
      /** HTTP status; 0 when there was no HTTP answer. */
      readonly status?: number;
      /** The server's `error` message, exactly as sent. */
      readonly serverMessage?: string;
      /** From `Retry-After` on 429 and 503 answers. */
      readonly retryAfterSeconds?: number;
      /** The server's `X-Request-Id`, to quote to the operator. */
      readonly requestId?: string;
      /** The key a paid order was sent with: retry later with the same key to be charged at most once. */
      readonly idempotencyKey?: string;
    },
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'ResellerApiError';
  }

  get status(): number {
    return this.details.status ?? 0;
  }

  get serverMessage(): string | undefined {
    return this.details.serverMessage;
  }
}

export function isResellerApiError(error: unknown): error is ResellerApiError {
  return typeof error === 'object' && error !== null && (error as Record<symbol, unknown>)[BRAND] === true;
}
