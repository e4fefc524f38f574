import { randomUUID } from 'node:crypto';
import { bodyParser } from '@koa/bodyparser';
import Router from '@koa/router';
import type { Container, ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import compose from 'koa-compose';
import type { z } from 'zod';
import { parseDomainName } from '../core/domain/domain-name';
import type { Reseller } from '../core/reseller/reseller';
import { DomainError, isDomainError } from '../core/shared/errors';
import type { Logger } from '../core/shared/logger';
import { TOKENS } from '../core/tokens';
import { STATUS } from './error-status';
import type { Route, RouteContext } from './route-table';
import { fromJson, parseForm, type WireParams } from './wire/form-body';

export const BODY_LIMIT = '64kb';

export interface HttpApiOptions {
  readonly container: Container;
  readonly routes: readonly Route[];
  readonly logger: Logger;
  /** Where the host mounts the API ("" at the root). Unmatched paths under a non-empty prefix get a 404 JSON. */
  readonly prefix?: string;
  /** Extra base path the routes are also served under (decisions.md: drop-in compatibility). */
  readonly basePath?: string;
  /** Answer unmatched requests with a 404 JSON even without a prefix (the stand-alone server does). */
  readonly ownAllPaths?: boolean;
}

type Ctx = Koa.ParameterizedContext;

/** Builds the Koa middleware that serves the route table. The only place HTTP meets the core. */
export function createHttpApi(options: HttpApiOptions): Koa.Middleware {
  const { container, logger } = options;
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const memo = new Map<ServiceIdentifier, unknown>();
  const resolve = <T>(token: ServiceIdentifier<T>): T => {
    if (!memo.has(token)) memo.set(token, container.get(token));
    return memo.get(token) as T;
  };
  const readBody = bodyParser({
    // Forms are read as text and parsed by our own qs call, whose limits @koa/bodyparser does not expose.
    enableTypes: ['json', 'text'],
    extendTypes: { text: ['application/x-www-form-urlencoded'] },
    parsedMethods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    jsonLimit: BODY_LIMIT,
    textLimit: BODY_LIMIT,
  });

  const router = new Router({ prefix });
  // Paths without parameters are found in a map first: koa-router builds a middleware chain for
  // every request it matches, which cost more than the rest of routing (bench/RESULTS.md).
  // Anything else (parameters, HEAD, a trailing slash, other case) goes through the router.
  const exact = new Map<string, Route>();
  const bases = [...new Set(['', (options.basePath ?? '').replace(/\/+$/, '')])];
  for (const base of bases) {
    for (const r of options.routes) {
      router[r.method](`${base}${r.path}`, (ctx: Ctx) => serve(ctx, r));
      if (!r.path.includes(':')) exact.set(`${r.method.toUpperCase()} ${prefix}${base}${r.path}`, r);
    }
  }
  const exactRoutes: Koa.Middleware = (ctx, next) => {
    const r = exact.get(`${ctx.method} ${ctx.path}`);
    if (r === undefined) return next();
    ctx.params = {};
    return serve(ctx, r);
  };

  async function serve(ctx: Ctx, r: Route): Promise<void> {
    const started = performance.now();
    const requestId = requestIdOf(ctx);
    ctx.set('X-Request-Id', requestId);
    try {
      const reseller = r.access === 'reseller' ? await authenticate(ctx) : (undefined as unknown as Reseller);
      const params = await readParams(ctx);
      assertBodyRepeatsPath(ctx.params, params);
      const input = validate(r.input, { ...params, ...ctx.params });
      const context: RouteContext<unknown> = { input, reseller, requestId, header: (name) => ctx.get(name) || undefined, resolve };
      const body = await r.handler(context);
      sendJson(ctx, 200, body);
    } catch (error) {
      sendError(ctx, error, requestId);
    } finally {
      logger.info({ reqId: requestId, method: ctx.method, route: r.path, status: ctx.status, ms: Math.round((performance.now() - started) * 10) / 10 }, 'request');
    }
  }

  async function authenticate(ctx: Ctx): Promise<Reseller> {
    return resolve(TOKENS.authenticator).authenticate({
      username: header(ctx, 'username'),
      token: header(ctx, 'token'),
      timestamp: header(ctx, 'timestamp'),
      clientAddress: ctx.ip,
    });
  }

  async function readParams(ctx: Ctx): Promise<WireParams> {
    const query = ctx.querystring ? parseForm(ctx.querystring) : Object.create(null);
    const hasBody = Number(ctx.get('content-length') || 0) > 0 || ctx.get('transfer-encoding') !== '';
    if (!hasBody) return query;
    const isForm = ctx.is('application/x-www-form-urlencoded');
    const isJson = ctx.is('json');
    if (!isForm && !isJson) {
      throw Object.assign(new Error('unsupported content type'), { status: 415 });
    }
    await readBody(ctx, async () => undefined);
    const raw = (ctx.request as { body?: unknown }).body;
    const body = isForm ? parseForm(typeof raw === 'string' ? raw : '') : fromJson(raw);
    return Object.assign(query, body);
  }

  function sendError(ctx: Ctx, error: unknown, requestId: string): void {
    if (isDomainError(error)) {
      if (error.details.retryAfterSeconds) ctx.set('Retry-After', String(error.details.retryAfterSeconds));
      return sendJson(ctx, STATUS[error.code], { error: error.message });
    }
    const status = (error as { status?: unknown }).status;
    if (status === 413) return sendJson(ctx, 413, { error: 'The request body is larger than 64 KiB' });
    if (status === 415) return sendJson(ctx, 415, { error: 'Send the body as application/x-www-form-urlencoded or application/json' });
    if (status === 400) return sendJson(ctx, 400, { error: 'The request body cannot be parsed; check its encoding and syntax' });
    logger.error({ reqId: requestId, err: error }, 'unexpected error');
    sendJson(ctx, 500, { error: `Internal server error (request id ${requestId})` });
  }

  const unmatched: Koa.Middleware = async (ctx, next) => {
    await next();
    const owned = prefix ? ctx.path === prefix || ctx.path.startsWith(`${prefix}/`) : options.ownAllPaths === true;
    if (!owned || ctx.body !== undefined) return;
    if (ctx.status === 405) {
      sendJson(ctx, 405, { error: `${ctx.method} is not allowed on ${ctx.path}; use ${ctx.response.get('Allow')}` });
    } else if (ctx.status === 404) {
      sendJson(ctx, 404, { error: `No route for ${ctx.method} ${ctx.path}` });
    }
  };

  return compose([unmatched, exactRoutes, router.routes() as Koa.Middleware, router.allowedMethods() as Koa.Middleware]);
}

function header(ctx: Ctx, name: string): string | undefined {
  const value = ctx.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

const REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

function requestIdOf(ctx: Ctx): string {
  const given = ctx.get('x-request-id');
  return REQUEST_ID.test(given) ? given : randomUUID();
}

export function sendJson(ctx: Ctx, status: number, body: unknown): void {
  ctx.status = status;
  ctx.type = 'application/json';
  ctx.body = JSON.stringify(body);
}

/**
 * Spec 4: a body may repeat a path parameter (`domain`); when it says something else, the request
 * is ambiguous and refused rather than guessed. Domains are compared after normalisation, so
 * Unicode in one place and punycode in the other agree.
 */
function assertBodyRepeatsPath(pathParams: Record<string, string>, params: WireParams): void {
  for (const [key, inPath] of Object.entries(pathParams ?? {})) {
    const given = params[key];
    if (given === undefined || given === '' || given === inPath) continue;
    if (typeof given === 'string' && key === 'domain' && sameDomain(given, inPath)) continue;
    const shown = typeof given === 'string' ? JSON.stringify(given.slice(0, 80)) : 'a list';
    throw new DomainError('validation_failed', `${key} in the request (${shown}) differs from the ${key} in the path (${JSON.stringify(inPath.slice(0, 80))})`);
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
    return issue.message.startsWith(where.split('.')[0] ?? '') || where === '' ? issue.message : `${where}: ${issue.message}`;
  });
  throw new DomainError('validation_failed', messages.join('; '));
}
