import { randomUUID } from 'node:crypto';
import type Koa from 'koa';

/** What the HTTP adapter learns about one API call while serving it. */
export interface ApiCall {
  readonly requestId: string;
  readonly method: string;
  /** The route template (`/domains/:domain/lock`); null for a path no route matched. */
  readonly route: string | null;
  /** Set once the reseller is identified (also when its IP allow-list then refuses the call). */
  resellerId?: string;
  /** The domain the call names (ASCII), when it names one. */
  domain?: string;
  /** The error message the reply carried. */
  error?: string;
  /** The request's parameters (query and body, as parsed), for the API log; redacted when it is written. */
  requestParams?: Readonly<Record<string, unknown>>;
  /** The reply's body as sent, for the API log; redacted when it is written. */
  replyText?: string;
}

export interface ObservedCall extends ApiCall {
  /** False for a request no route matched (no `begin` was called for it). */
  readonly routed: boolean;
  /** A public operational route (/healthz, /readyz, /metrics, /openapi.json). */
  readonly operational?: boolean;
  readonly status: number;
  readonly durationMs: number;
  readonly clientIp: string;
}

export interface RequestObservation {
  /** Called when a routed call starts (the in-flight gauge). */
  readonly begin?: () => void;
  /** Called once per API call after the reply is set: logs, metrics, the API log. Must be cheap and never throw. */
  readonly observe: (call: ObservedCall) => void;
  /** Runs the rest of the request inside a log context carrying the request id. */
  readonly runInContext?: (requestId: string, work: () => Promise<void>) => Promise<void>;
}

/** `T` with each of its fields present (an optional one may hold undefined). */
type EveryField<T> = { [K in keyof Required<T>]: T[K] };

const STATE_KEY = Symbol.for('reseller/apiCall');

/** The call being served, for the route's handler side to fill in. */
export function apiCallOf(ctx: Koa.Context | Koa.ParameterizedContext): ApiCall | undefined {
  return (ctx.state as Record<symbol, ApiCall | undefined>)[STATE_KEY];
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** A client's own X-Request-Id is kept when it is plain; otherwise a new one is made. */
export function requestIdOf(ctx: Koa.Context | Koa.ParameterizedContext): string {
  const given = ctx.get('x-request-id');
  return REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * Mounted in front of each route: gives the call its request id (the X-Request-Id header, every
 * log line inside it, the message of a 500), times it, and reports it once it is answered.
 */
export function observeRoute(
  method: string,
  route: string,
  observation: RequestObservation,
  kind: { operational?: boolean } = {},
): Koa.Middleware {
  const upper = method.toUpperCase();
  const operational = kind.operational === true;
  const { runInContext } = observation;
  return async (ctx, next) => {
    const started = performance.now();
    const call: ApiCall = { requestId: requestIdOf(ctx), method: upper, route };
    (ctx.state as Record<symbol, ApiCall>)[STATE_KEY] = call;
    ctx.set('X-Request-Id', call.requestId);
    observation.begin?.();
    try {
      await (runInContext ? runInContext(call.requestId, next as () => Promise<void>) : next());
    } finally {
      // One literal, not `{ ...call, status, … }`: on Node 20 a spread followed by more fields
      // makes a new hidden class on every call (docs/performance.md#object-shapes-on-the-hot-path).
      // Every field is named, optional ones too: a field added to ApiCall fails to compile here.
      const observed: EveryField<ObservedCall> = {
        requestId: call.requestId,
        method: call.method,
        route: call.route,
        resellerId: call.resellerId,
        domain: call.domain,
        error: call.error,
        requestParams: call.requestParams,
        replyText: call.replyText,
        status: ctx.status,
        durationMs: performance.now() - started,
        clientIp: ctx.ip,
        routed: true,
        operational,
      };
      observation.observe(observed);
    }
  };
}

/** Reports a request under the API's prefix that no route matched (a 404 or 405). */
export function observeUnmatched(
  ctx: Koa.Context | Koa.ParameterizedContext,
  started: number,
  observation: RequestObservation,
): void {
  observation.observe({
    requestId: '',
    method: ctx.method,
    route: null,
    status: ctx.status,
    durationMs: performance.now() - started,
    clientIp: ctx.ip,
    routed: false,
  });
}
