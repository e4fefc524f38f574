import type { ServiceIdentifier } from 'inversify';
import type { z } from 'zod';
import type { Reseller } from '../core/reseller/reseller';

export type Access = 'reseller' | 'public';

export interface RouteContext<Input> {
  /** Query string, body and path parameters merged, then validated by the route's schema. */
  readonly input: Input;
  /** The authenticated reseller; routes with `access: 'public'` never read it. */
  readonly reseller: Reseller;
  readonly requestId: string;
  readonly header: (name: string) => string | undefined;
  /** Resolves a core service from the container (memoised: no per-request container work). */
  readonly resolve: <T>(token: ServiceIdentifier<T>) => T;
}

export interface Route<Schema extends z.ZodType = z.ZodType> {
  readonly method: 'get' | 'post';
  /** Koa-router path, `{domain}` written as `:domain`. */
  readonly path: string;
  /** Every route states its access rule. */
  readonly access: Access;
  readonly input: Schema;
  /** Returns the reply body; it is always sent as JSON. */
  readonly handler: (ctx: RouteContext<z.infer<Schema>>) => Promise<unknown>;
  readonly summary: string;
}

/** Keeps each route's handler typed by its own schema. */
export function route<Schema extends z.ZodType>(definition: Route<Schema>): Route<Schema> {
  return definition;
}
