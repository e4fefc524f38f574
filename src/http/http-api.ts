import Router from '@koa/router';
import type { Container } from 'inversify';
import type Koa from 'koa';
import compose from 'koa-compose';
import type { z } from 'zod';
import { parseDomainName } from '../core/domain/domain-name';
import type { Reseller } from '../core/reseller/reseller';
import { DomainError, isDomainError } from '../core/common/errors';
import type { Logger } from '../core/common/logger';
import { TOKENS } from '../core/tokens';
import { bodyEncoding, HttpInputError } from './content-encoding';
import { type DatabaseTrouble, databaseTrouble } from '../infra/db/errors';
import { STATUS } from './error-status';
import { apiCallOf, observeRoute, observeUnmatched, type RequestObservation } from './middleware/observe-requests';
import { RequestBodyReader } from './request-body';
import { HttpReply, type Route, type RouteContext } from './route-table';
import { parseForm, type WireParams } from './wire/form-body';
import { parseJsonBody } from './wire/json-body';
import { noInput } from './wire/schemas';
import type { Token } from '../core/tokens';

export const BODY_LIMIT_BYTES = 64 * 1024;

/** Compressed bodies decoded at once by one process (a brotli decoder may hold 16 MiB while it works). */
const DECODERS_IN_FLIGHT = 4;

export interface HttpApiOptions {
  readonly container: Container;
  readonly routes: readonly Route[];
  readonly logger: Logger;
  /** Where the host mounts the API ("" at the root). Unmatched paths under a non-empty prefix get a 404 JSON. */
  readonly prefix?: string;
  /** Extra base path the routes are also served under (docs/api.md#base-paths: drop-in compatibility). */
  readonly basePath?: string;
  /** Answer unmatched requests with a 404 JSON even without a prefix (the stand-alone server does). */
  readonly ownAllPaths?: boolean;
  /** Request ids, logs, metrics and the API log (src/http/middleware/observe-requests.ts). */
  readonly observation?: RequestObservation;
  /** Development and tests: every 200 reply is checked against its route's `output` schema; a mismatch is a 500. */
  readonly checkReplies?: boolean;
}

const NOT_OBSERVED: RequestObservation = { observe: () => undefined };

/** The parameters of a request without a query string or body (shared: never written to). */
const NO_PARAMS: WireParams = Object.freeze(Object.create(null) as WireParams);
/** The path parameters of a route without any (the exact-path routes). */
const NO_PATH_PARAMS: Record<string, string> = Object.freeze({});
/** What `noInput` makes of any request: it keeps no field. */
const NO_INPUT = Object.freeze({});

/** What a handler is given; `header` is made only for a handler that reads it. */
class RequestContext implements RouteContext<unknown> {
  constructor(
    readonly input: unknown,
    readonly reseller: Reseller,
    readonly requestId: string,
    private readonly ctx: Koa.ParameterizedContext,
    readonly resolve: <T>(token: Token<T>) => T,
  ) {}

  get header(): (name: string) => string | undefined {
    const { ctx } = this;
    return (name) => ctx.get(name) || undefined;
  }
}

type Ctx = Koa.ParameterizedContext;

/** Builds the Koa middleware that serves the route table. The only place HTTP meets the core. */
export function createHttpApi(options: HttpApiOptions): Koa.Middleware {
  const { container, logger } = options;
  const observation = options.observation ?? NOT_OBSERVED;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const memo = new Map<Token<unknown>, unknown>();
  const resolve = <T>(token: Token<T>): T => {
    if (!memo.has(token)) memo.set(token, container.get(token));
    return memo.get(token) as T;
  };
  const bodies = new RequestBodyReader({ limitBytes: BODY_LIMIT_BYTES, decodersInFlight: DECODERS_IN_FLIGHT });

  const router = new Router({ prefix });
  // Routes without path parameters are also found by one map lookup on the exact path, before the
  // router tries its patterns one by one and composes a chain for the request (bench/RESULTS.md);
  // anything else (parameters, HEAD, a trailing slash, other letter case) goes to the router.
  const exact = new Map<string, (ctx: Koa.Context) => Promise<void>>();
  const bases = [...new Set(['', (options.basePath ?? '').replace(/\/+$/, '')])];
  for (const base of bases) {
    for (const r of options.routes) {
      const observed = observeRoute(r.method, r.path, observation, { operational: r.access === 'public' });
      const handle = (ctx: Ctx) => serve(ctx, r);
      // One function per route, made here: a request makes no closure to reach its handler.
      const served = (ctx: Koa.Context) => observed(ctx as Ctx, handle);
      router[r.method](`${base}${r.path}`, served);
      if (!r.path.includes(':')) exact.set(`${r.method.toUpperCase()} ${prefix}${base}${r.path}`, served);
    }
  }
  const exactRoutes: Koa.Middleware = (ctx, next) => {
    const found = exact.get(`${ctx.method} ${ctx.path}`);
    if (!found) return next();
    ctx.params = NO_PATH_PARAMS;
    return found(ctx);
  };

  async function serve(ctx: Ctx, r: Route): Promise<void> {
    const call = apiCallOf(ctx)!;
    const { requestId } = call;
    try {
      const reseller = r.access === 'reseller' ? await authenticate(ctx) : (undefined as unknown as Reseller);
      if (reseller) call.resellerId = reseller.id;
      const query = ctx.querystring ? parseForm(ctx.querystring) : NO_PARAMS;
      // A route that takes no parameters never reads a body: nothing is decoded for /healthz.
      const params = r.input !== noInput && hasBody(ctx) ? await withBody(ctx, query) : query;
      call.requestParams = params;
      const pathParams = ctx.params;
      if (pathParams !== NO_PATH_PARAMS) assertBodyRepeatsPath(pathParams, params);
      call.domain = domainNamed(pathParams.domain ?? params.domain);
      // `noInput` keeps no field of any request: its result is the same empty input for every call.
      const input = r.input === noInput ? NO_INPUT : validate(r.input, { ...params, ...pathParams });
      const body = await r.handler(new RequestContext(input, reseller, requestId, ctx, resolve));
      if (body instanceof HttpReply) {
        if (options.checkReplies && body.status === 200 && body.contentType === undefined) checkReply(r, body.body);
        return sendReply(ctx, body);
      }
      if (options.checkReplies) checkReply(r, body);
      sendJson(ctx, 200, body);
    } catch (error) {
      sendError(ctx, error, requestId);
    }
    if (typeof ctx.body === 'string') call.replyText = ctx.body;
  }

  function authenticate(ctx: Ctx): Promise<Reseller> {
    return resolve(TOKENS.authenticator).authenticate({
      username: header(ctx, 'username'),
      token: header(ctx, 'token'),
      timestamp: header(ctx, 'timestamp'),
      clientAddress: ctx.ip,
    });
  }

  /** The body's fields over the query's. */
  async function withBody(ctx: Ctx, query: WireParams): Promise<WireParams> {
    const isForm = ctx.is('application/x-www-form-urlencoded');
    const isJson = ctx.is('json');
    if (!isForm && !isJson) {
      throw Object.assign(new Error('unsupported content type'), { status: 415 });
    }
    const text = await bodies.read(ctx.req, bodyEncoding(ctx.get('content-encoding')));
    const body = isForm ? parseForm(text) : parseJsonBody(text);
    return Object.assign(Object.create(null) as WireParams, query, body);
  }

  function sendError(ctx: Ctx, error: unknown, requestId: string): void {
    const reply = errorReply(error, requestId);
    if (reply.status === 500) logger.error({ reqId: requestId, err: error }, 'unexpected error');
    if (reply.retryAfterSeconds !== undefined) {
      logger.warn(
        { reqId: requestId, err: error },
        'the database did not answer, or kept refusing the transaction; the client is told to retry',
      );
      ctx.set('Retry-After', String(reply.retryAfterSeconds));
    }
    const call = apiCallOf(ctx)!;
    call.error = reply.message;
    if (isDomainError(error)) {
      if (error.details.retryAfterSeconds) ctx.set('Retry-After', String(error.details.retryAfterSeconds));
      if (error.details.resellerId) call.resellerId = error.details.resellerId;
    }
    sendJson(ctx, reply.status, { error: reply.message });
  }

  const unmatched: Koa.Middleware = async (ctx, next) => {
    const started = performance.now();
    await next();
    const owned = prefix ? ctx.path === prefix || ctx.path.startsWith(`${prefix}/`) : options.ownAllPaths === true;
    if (!owned || ctx.body !== undefined) return;
    if (ctx.status === 405) {
      sendJson(ctx, 405, { error: `${ctx.method} is not allowed on ${ctx.path}; use ${ctx.response.get('Allow')}` });
    } else if (ctx.status === 404) {
      sendJson(ctx, 404, { error: `No route for ${ctx.method} ${ctx.path}` });
    } else {
      return;
    }
    observeUnmatched(ctx, started, observation);
  };

  // The exact routes come first: a request they serve never passes through `unmatched`.
  const middleware = compose([
    exactRoutes,
    unmatched,
    router.routes() as Koa.Middleware,
    router.allowedMethods() as Koa.Middleware,
  ]);
  mounted.set(
    middleware,
    router.stack.flatMap((layer) =>
      layer.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: String(layer.path) })),
    ),
  );
  return middleware;
}

const mounted = new WeakMap<Koa.Middleware, ReadonlyArray<{ method: string; path: string }>>();

/** What the router of a middleware made by `createHttpApi` serves: method and full path of every route (tests compare it with the OpenAPI document). */
export function mountedRoutes(middleware: Koa.Middleware): ReadonlyArray<{ method: string; path: string }> {
  return mounted.get(middleware) ?? [];
}

/** A request without a body is read without waiting for one (most reads: one await less per request). */
function hasBody(ctx: Ctx): boolean {
  return Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
}

function header(ctx: Ctx, name: string): string | undefined {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

export function sendJson(ctx: Ctx, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

function sendReply(ctx: Ctx, reply: HttpReply): void {
  if (reply.headers) ctx.set(reply.headers as Record<string, string>);
  if (reply.contentType === undefined) {
    sendJson(ctx, reply.status, reply.body);
    return;
  }
  ctx.status = reply.status;
  ctx.type = reply.contentType;
  ctx.body = reply.body;
}

const DATABASE_UNAVAILABLE = 'The database is not answering; try again in a few seconds';
/**
 * A deadlock that outlasted every retry. Not "nothing was done": a domain operation may have
 * asked the registrar before its record could be written (the domain sync brings our record in
 * line); an order is the same as with a lock wait below.
 */
const DATABASE_BUSY =
  'The database is busy with conflicting changes; try again in a few seconds (an order sent again with its Idempotency-Key is never charged twice)';
/**
 * A lock wait timeout (MariaDB 1205) said without claiming what was done: the unit of work that
 * waited was rolled back, but on some routes something may have happened before it (a registrar
 * call). The order routes answer it only before the registrar is asked (a settlement that cannot
 * be recorded answers "success", pending, for reconciliation): there nothing was charged.
 */
const DATABASE_LOCK_WAIT =
  'The database waited too long for another change to finish; try again in a few seconds (an order sent again with its Idempotency-Key is never charged twice)';
const DATABASE_RETRY_AFTER_SECONDS = 2;
const DATABASE_TROUBLE: Readonly<Record<DatabaseTrouble, string>> = {
  unavailable: DATABASE_UNAVAILABLE,
  'lock-wait': DATABASE_LOCK_WAIT,
  busy: DATABASE_BUSY,
};

/** The status and message of an error reply (docs/api.md#errors-and-status-codes); anything unexpected is a 500 naming the request id. */
export function errorReply(
  error: unknown,
  requestId: string,
): { status: number; message: string; retryAfterSeconds?: number } {
  if (isDomainError(error)) return { status: STATUS[error.code], message: error.message };
  if (error instanceof HttpInputError) return { status: error.status, message: error.message };
  const status = (error as { status?: unknown }).status;
  if (status === 413) return { status, message: 'The request body is larger than 64 KiB' };
  if (status === 415)
    return { status, message: 'Send the body as application/x-www-form-urlencoded or application/json' };
  if (status === 400) return { status, message: 'The request body cannot be parsed; check its encoding and syntax' };
  // 'busy': a transaction still losing to concurrent ones after every retry (one account ordered from several Galera nodes at once).
  const trouble = databaseTrouble(error);
  if (trouble)
    return { status: 503, message: DATABASE_TROUBLE[trouble], retryAfterSeconds: DATABASE_RETRY_AFTER_SECONDS };
  return { status: 500, message: `Internal server error (request id ${requestId})` };
}

/** The domain a call names, for the API log: normalised when it parses, else as given (bounded). */
function domainNamed(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return undefined;
  try {
    return parseDomainName(value).ascii;
  } catch {
    return value.trim().toLowerCase().slice(0, 253) || undefined;
  }
}

function checkReply(r: Route, body: unknown): void {
  const result = r.output.safeParse(body);
  if (!result.success) {
    const issues = result.error.issues
      .slice(0, 3)
      .map((i) => `${i.path.join('.') || '(reply)'}: ${i.message}`)
      .join('; ');
    throw new Error(`the reply of ${r.method.toUpperCase()} ${r.path} does not match its output schema: ${issues}`);
  }
}

/**
 * docs/api.md#the-domain-in-a-path: a body may repeat a path parameter (`domain`); when it says something else, the request
 * is ambiguous and refused rather than guessed. Domains are compared after normalisation, so
 * Unicode in one place and punycode in the other agree.
 */
function assertBodyRepeatsPath(pathParams: Record<string, string>, params: WireParams): void {
  for (const [key, inPath] of Object.entries(pathParams ?? {})) {
    const given = params[key];
    if (given === undefined || given === '' || given === inPath) continue;
    if (typeof given === 'string' && key === 'domain' && sameDomain(given, inPath)) continue;
    const shown = typeof given === 'string' ? JSON.stringify(given.slice(0, 80)) : 'a list';
    throw new DomainError(
      'validation_failed',
      `${key} in the request (${shown}) differs from the ${key} in the path (${JSON.stringify(inPath.slice(0, 80))})`,
    );
  }
}

function sameDomain(a: string, b: string): boolean {
  try {
    return parseDomainName(a).ascii === parseDomainName(b).ascii;
  } catch {
    return false;
  }
}

/** Schema issues become one 400 with every problem named, in the client's words. */
function validate<S extends z.ZodType>(schema: S, params: WireParams): z.infer<S> {
  const result = schema.safeParse(params);
  if (result.success) return result.data;
  const messages = result.error.issues.slice(0, 5).map((issue) => {
    const where = issue.path.map(String).join('.');
    return issue.message.startsWith(where.split('.')[0] ?? '') || where === ''
      ? issue.message
      : `${where}: ${issue.message}`;
  });
  throw new DomainError('validation_failed', messages.join('; '));
}
