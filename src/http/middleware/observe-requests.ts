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
  /** Runs `work(ctx)` inside a log context carrying the request id (the argument is passed on, so that no closure is made per request). */
  readonly runInContext?: <C>(requestId: string, work: (ctx: C) => Promise<void>, ctx: C) => Promise<void>;
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
  const given = ctx.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
}

/**
 * One routed call, from its start until it is reported: the handler side fills in what it learns,
 * the observer is given the same object once the reply is set. Every field is set when it is made,
 * so that every call has one shape (docs/performance.md#object-shapes-on-the-hot-path) and a
 * request makes one such object, not one while served and a copy to report it.
 */
class ServedCall {
  resellerId: string | undefined = undefined;
  domain: string | undefined = undefined;
  error: string | undefined = undefined;
  requestParams: Readonly<Record<string, unknown>> | undefined = undefined;
  replyText: string | undefined = undefined;
  status = 0;
  durationMs = 0;
  clientIp = '';
  readonly routed = true;

  constructor(
    readonly requestId: string,
    readonly method: string,
    readonly route: string | null,
    readonly operational: boolean,
  ) {}
}

// Every field of ObservedCall is one of ServedCall's: a field added to ApiCall or ObservedCall fails to compile here until it is.
const everyField = (call: ServedCall): EveryField<ObservedCall> => call;
void everyField;

/** A route's own work, given the request's context (the handler and its reply). */
export type RouteWork = (ctx: Koa.ParameterizedContext) => Promise<void>;

/**
 * Wraps a route's work: gives the call its request id (the X-Request-Id header, every log line
 * inside it, the message of a 500), times it, and reports it once it is answered.
 */
export function observeRoute(
  method: string,
  route: string,
  observation: RequestObservation,
  kind: { operational?: boolean } = {},
): (ctx: Koa.ParameterizedContext, work: RouteWork) => Promise<void> {
  const upper = method.toUpperCase();
  const operational = kind.operational === true;
  const { runInContext } = observation;
  return async (ctx, work) => {
    const started = performance.now();
    const call = new ServedCall(requestIdOf(ctx), upper, route, operational);
    (ctx.state as Record<symbol, ApiCall>)[STATE_KEY] = call;
    ctx.set('X-Request-Id', call.requestId);
    observation.begin?.();
    try {
      await (runInContext ? runInContext(call.requestId, work, ctx) : work(ctx));
    } finally {
      call.status = ctx.status;
      call.durationMs = performance.now() - started;
      call.clientIp = ctx.ip;
      observation.observe(call);
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
