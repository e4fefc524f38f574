import type { z } from 'zod';
import type { AuthenticatedReseller } from '../core/auth/authenticator';
import type { Token } from '../core/tokens';

export type Access = 'reseller' | 'public';

export interface RouteContext<Input> {
  /** Query string, body and path parameters merged, then validated by the route's schema. */
  readonly input: Input;
  /** The authenticated reseller; routes with `access: 'public'` never read it. */
  readonly reseller: AuthenticatedReseller;
  readonly requestId: string;
  readonly header: (name: string) => string | undefined;
  /** Resolves a core service from the container (memoised: no per-request container work). */
  readonly resolve: <T>(token: Token<T>) => T;
}

export interface Route<Schema extends z.ZodType = z.ZodType> {
  readonly method: 'get' | 'post';
  /** Koa-router path, `{domain}` written as `:domain`. */
  readonly path: string;
  /** Every route states its access rule. */
  readonly access: Access;
  /** Validates the request (query, body and path merged); the OpenAPI document's request schema too. */
  readonly input: Schema;
  /** The 200 reply's shape: the OpenAPI document's response schema, checked against real replies in the tests. */
  readonly output: z.ZodType;
  /** Returns the reply body (sent as JSON), or an `HttpReply` for another status or content type. */
  readonly handler: (ctx: RouteContext<z.infer<Schema>>) => Promise<unknown>;
  readonly summary: string;
  /** Groups the route in the OpenAPI document. */
  readonly tag?: string;
  /**
   * The handler honours an `Idempotency-Key` header (docs/api.md#idempotency-key): the OpenAPI
   * document lists the header and its 422 reply.
   */
  readonly idempotent?: true;
  /** Headers of the 200 reply the route sets (name → description), for the OpenAPI document. */
  readonly replyHeaders?: Readonly<Record<string, string>>;
}

/** Keeps each route's handler typed by its own schema. */
export function route<Schema extends z.ZodType>(definition: Route<Schema>): Route<Schema> {
  return definition;
}

/** A reply other than a plain 200 JSON body: a status of its own (a 503 from /readyz), text (/metrics), or headers of its own. */
export class HttpReply {
  constructor(
    readonly status: number,
    readonly body: unknown,
    /** Sent as is when set; otherwise the body is JSON. */
    readonly contentType?: string,
    /** Response headers of the route's own (the paid order routes' `Order-Id` and `Order-Status`). */
    readonly headers?: Readonly<Record<string, string>>,
  ) {}
}
