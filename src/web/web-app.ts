import { actingAs } from '../core/audit/audit-log';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import Router from '@koa/router';
import type { Eta } from 'eta';
import type { Container, ServiceIdentifier } from 'inversify';
import type Koa from 'koa';
import compose from 'koa-compose';
import { isDomainError } from '../core/common/errors';
import { type DatabaseTrouble, databaseTrouble } from '../infra/db/errors';
import { ulid } from '../core/common/ids';
import type { Logger } from '../core/common/logger';
import { STATUS } from '../http/error-status';
import { toCsv } from './csv';
import type { AreaRules, Fields, Page, PageContext, PageResult, SignInControl } from './page-table';
import { isSameOrigin, setSecurityHeaders, tokensMatch } from './security';
import type { WebArea, WebSession, WebSessions } from './sessions';
import { renderInLayout } from './templates';
import { VIEW_HELPERS } from './view-helpers';

/** The exact htmx build the pages load (package.json pins htmx.org to this version). */
export const HTMX_VERSION = '4.0.1';
const STATIC_DIR = path.join(__dirname, 'static');
const FORM_LIMIT = 64 * 1024;

export interface WebAreaOptions<Principal, Access extends string> {
  readonly area: WebArea;
  /** Where the area is mounted, like "/admin" ("" for the root). */
  readonly mountPath: string;
  readonly title: string;
  readonly pages: ReadonlyArray<Page<Principal, Access>>;
  readonly rules: AreaRules<Principal, Access>;
  readonly sessions: WebSessions;
  readonly container: Container;
  readonly templates: Eta;
  readonly logger: Logger;
}

interface StaticFile {
  readonly body: Buffer;
  readonly type: string;
}

function staticFiles(): Map<string, StaticFile> {
  const htmx = path.join(path.dirname(require.resolve('htmx.org')), 'htmx.min.js');
  return new Map([
    [
      `/static/htmx-${HTMX_VERSION}.min.js`,
      { body: readFileSync(htmx), type: 'application/javascript; charset=utf-8' },
    ],
    ['/static/web.css', { body: readFileSync(path.join(STATIC_DIR, 'web.css')), type: 'text/css; charset=utf-8' }],
    [
      '/static/web.js',
      { body: readFileSync(path.join(STATIC_DIR, 'web.js')), type: 'application/javascript; charset=utf-8' },
    ],
  ]);
}

/**
 * Koa middleware serving one area of pages (the console or the portal) under its mount: static
 * files, security headers, the session cookie, the CSRF and Origin check of every POST, each
 * page's access rule, and error pages. Requests outside the mount pass to `next`.
 */
export function createWebArea<Principal, Access extends string>(
  options: WebAreaOptions<Principal, Access>,
): Koa.Middleware {
  const { area, rules, sessions, templates, logger, container } = options;
  const mount = options.mountPath.replace(/\/+$/, '');
  const files = staticFiles();
  const memo = new Map<ServiceIdentifier, unknown>();
  const resolve = <T>(token: ServiceIdentifier<T>): T => {
    if (!memo.has(token)) memo.set(token, container.get(token));
    return memo.get(token) as T;
  };
  const url = (p: string) => `${mount}${p.startsWith('/') ? p : `/${p}`}`;
  /** The layout's values every page of the area shares. */
  const areaValues = {
    ...VIEW_HELPERS,
    title: options.title,
    area,
    url,
    htmx: url(`/static/htmx-${HTMX_VERSION}.min.js`),
  };
  /** The layout's values: the nav and who is signed in from the area's rules (none when nobody is, or could not be read). */
  const layoutValues = (csrf: string, principal?: Principal, session?: WebSession): Record<string, unknown> =>
    Object.assign({ csrf }, areaValues, rules.layout(principal, session));
  /** The error page, in the layout unless htmx asked for a fragment. */
  const errorPageIn = (
    layout: Record<string, unknown>,
    isFragment: boolean,
    error: { status: number; message: string; requestId: string },
    headers?: Readonly<Record<string, string>>,
  ): PageResult => {
    const values = { ...layout, ...error };
    const body = templates.render('error', values);
    return {
      kind: 'html',
      status: error.status,
      body: isFragment ? body : renderInLayout(templates, values, body),
      headers,
    };
  };
  const cookieNames = (secure: boolean) =>
    secure
      ? { session: `__Host-${area}`, pre: `__Host-${area}-pre`, path: '/' }
      : { session: `${area}_session`, pre: `${area}_pre`, path: mount || '/' };

  // One router per first segment of the pages' paths ("/domains/:name" → "domains"), so that a
  // request is matched against the few pages that share its first segment, not against every page
  // of the area. Pages whose first segment is itself a parameter would match any: then one router.
  const segmentOf = (p: string) => p.split('/', 2)[1]!.toLowerCase();
  const groups = new Map<string, Array<Page<Principal, Access>>>();
  const oneRouter = options.pages.some((page) => /[:*(]/.test(segmentOf(page.path)));
  for (const page of options.pages) {
    const key = oneRouter ? '' : segmentOf(page.path);
    groups.set(key, [...(groups.get(key) ?? []), page]);
  }
  const routers = new Map<string, Koa.Middleware>();
  for (const [key, pages] of groups) {
    const router = new Router({ prefix: mount });
    for (const page of pages) router[page.method](page.path, (ctx) => servePageOrTrouble(ctx as Koa.Context, page));
    routers.set(key, compose([router.routes() as Koa.Middleware, router.allowedMethods() as Koa.Middleware]));
  }

  /**
   * A page whose session could not even be read (the database down or busy) still gets a page of
   * ours: 503 with Retry-After when the database is the trouble, else 500 naming the request id.
   */
  async function servePageOrTrouble(ctx: Koa.Context, page: Page<Principal, Access>): Promise<void> {
    const requestId = ulid();
    try {
      await servePage(ctx, page, requestId);
    } catch (error) {
      const trouble = databaseTrouble(error);
      if (!trouble) logger.error({ reqId: requestId, err: error, path: ctx.path }, 'unexpected error on a web page');
      const status = trouble ? 503 : 500;
      const message = trouble ? PAGE_TROUBLE[trouble] : `Something went wrong on our side (request id ${requestId}).`;
      send(
        ctx,
        errorPageIn(
          layoutValues(''),
          ctx.get('hx-request') === 'true',
          { status, message, requestId },
          trouble ? { 'Retry-After': String(PAGE_RETRY_AFTER_SECONDS) } : undefined,
        ),
      );
    }
  }

  async function servePage(ctx: Koa.Context, page: Page<Principal, Access>, requestId: string): Promise<void> {
    const names = cookieNames(ctx.secure);
    const cookie = ctx.cookies.get(names.session);
    // A page's main read (Page.early), for a session this process served signed in at its last
    // request, starts now beside the session read rather than after it: one round trip less. Its
    // result reaches the handler only if the session read below lets the page be served, and no
    // answer is sent before it has settled (the `finally` below). A session revoked meanwhile by
    // another process costs the database that one read, its result never shown.
    const query = fieldsOf(new URLSearchParams(ctx.querystring));
    let early: Promise<unknown> | undefined;
    if (page.early && ctx.method === 'GET' && sessions.servedBefore(cookie, area)) {
      try {
        early = page.early({ query, params: ctx.params ?? {}, resolve });
      } catch (error) {
        // Thrown to the handler, which meets it only once the session lets it run.
        early = Promise.reject(error);
      }
    }
    // Handled here too, so that a read whose result is dropped is no unhandled rejection.
    const earlySettled = early?.then(
      () => undefined,
      () => undefined,
    );
    try {
      await servePageAfterSession(ctx, page, { requestId, names, cookie, query, early });
    } finally {
      await earlySettled;
    }
  }

  async function servePageAfterSession(
    ctx: Koa.Context,
    page: Page<Principal, Access>,
    request: {
      readonly requestId: string;
      readonly names: ReturnType<typeof cookieNames>;
      readonly cookie: string | undefined;
      readonly query: Fields;
      readonly early: Promise<unknown> | undefined;
    },
  ): Promise<void> {
    const { requestId, names, cookie, query, early } = request;
    const cookieOptions = {
      httpOnly: true,
      sameSite: 'lax' as const,
      secure: ctx.secure,
      path: names.path,
      overwrite: true,
    };
    // The session and whom it names, fresh from the database in one statement on every request:
    // a revoked session, a disabled operator or a suspended reseller is refused at the next one.
    const resumed = await sessions.resume(cookie, area);
    let session = resumed?.session;
    const principal = resumed && rules.principalOf(resumed.principal);
    if (session && principal === undefined) {
      await sessions.end(session.idHash);
      session = undefined;
    }
    // The sign-in form's CSRF token before any session exists: a random cookie the form repeats.
    let pre = ctx.cookies.get(names.pre);
    if (!session && (!pre || !/^[\w-]{32}$/.test(pre))) {
      pre = ulid().toLowerCase() + ulid().toLowerCase().slice(0, 6);
      ctx.cookies.set(names.pre, pre, cookieOptions);
    }
    const csrf = session ? session.csrfToken : (pre ?? '');
    const isPublic = rules.publicAccess.includes(page.access);
    const isFragment = ctx.get('hx-request') === 'true';
    const clientIp = ctx.ip;
    const layoutOf = () => layoutValues(csrf, principal, session);

    const render = (
      template: string,
      data: Record<string, unknown> = {},
      o: { status?: number; fragment?: string; headers?: Readonly<Record<string, string>> } = {},
    ): PageResult => {
      const values = Object.assign(layoutOf(), data);
      const status = o.status ?? 200;
      if (isFragment && o.fragment)
        return { kind: 'html', status, body: templates.render(`${area}/${o.fragment}`, values), headers: o.headers };
      // The page's template first, then the layout around it with the same values.
      const page = templates.render(`${area}/${template}`, values);
      return { kind: 'html', status, body: renderInLayout(templates, values, page), headers: o.headers };
    };
    const errorPage = (status: number, message: string, headers?: Readonly<Record<string, string>>): PageResult =>
      errorPageIn(layoutOf(), isFragment, { status, message, requestId }, headers);

    try {
      let form: Fields = {};
      if (ctx.method === 'POST') {
        form = await readForm(ctx);
        const given = typeof form._csrf === 'string' ? form._csrf : ctx.get('x-csrf-token');
        if (!isSameOrigin(ctx) || !tokensMatch(given, csrf)) {
          logger.warn(
            { reqId: requestId, path: ctx.path, area },
            'web request refused: CSRF token or origin check failed',
          );
          return send(
            ctx,
            errorPage(403, 'This form has expired or did not come from this site. Reload the page and try again.'),
          );
        }
      }
      if (!isPublic) {
        if (!session || principal === undefined) {
          if (ctx.method === 'GET') return send(ctx, { kind: 'redirect', location: url(rules.redirectFor(undefined)) });
          return send(ctx, errorPage(401, 'You are not signed in, or your session has ended. Sign in again.'));
        }
        if (!rules.allows(page.access, principal, session)) {
          if (session.stage !== 'signed_in')
            return send(ctx, { kind: 'redirect', location: url(rules.redirectFor(session)) });
          return send(ctx, errorPage(403, 'Your role may not do this.'));
        }
      }

      const signIn: SignInControl = {
        async start(kind, id, stage, data) {
          if (session) await sessions.end(session.idHash);
          const started = await sessions.start({
            area,
            principalKind: kind,
            principalId: id,
            stage,
            clientIp,
            userAgent: ctx.get('user-agent') || null,
            data,
          });
          session = started.session;
          ctx.cookies.set(names.session, started.id, cookieOptions);
        },
        async advance(stage, data) {
          if (!session) throw new Error('no session to advance');
          const next = await sessions.advance(session, stage, data);
          session = next.session;
          ctx.cookies.set(names.session, next.id, cookieOptions);
        },
        async end() {
          if (session) await sessions.end(session.idHash);
          session = undefined;
          ctx.cookies.set(names.session, '', { ...cookieOptions, maxAge: 0 });
        },
      };
      const actorBase =
        principal === undefined ? { kind: 'system' as const, id: null, label: 'anonymous' } : rules.actorOf(principal);
      const context: PageContext<Principal> = {
        principal: principal as Principal,
        get session() {
          return session;
        },
        params: ctx.params ?? {},
        query,
        form,
        isFragment,
        requestId,
        clientIp,
        origin: ctx.origin,
        userAgent: ctx.get('user-agent'),
        actor: { ...actorBase, clientIp, requestId },
        resolve,
        url,
        render,
        redirect: (p) => ({ kind: 'redirect', location: url(p) }),
        csv: (filename, rows) => ({ kind: 'csv', filename, rows }),
        signIn,
        early,
      };
      // The changes a page makes are audited, in their own transactions, as made by its principal.
      send(ctx, await actingAs(context.actor, () => page.handler(context)));
    } catch (error) {
      if (isDomainError(error)) return send(ctx, errorPage(STATUS[error.code], error.message));
      if ((error as { status?: number }).status === 413) return send(ctx, errorPage(413, 'The form is too large.'));
      if ((error as { status?: number }).status === 415)
        return send(ctx, errorPage(415, 'Send the form as a browser does (application/x-www-form-urlencoded).'));
      const trouble = databaseTrouble(error);
      if (trouble)
        return send(ctx, errorPage(503, PAGE_TROUBLE[trouble], { 'Retry-After': String(PAGE_RETRY_AFTER_SECONDS) }));
      logger.error({ reqId: requestId, err: error, path: ctx.path }, 'unexpected error on a web page');
      send(ctx, errorPage(500, `Something went wrong on our side (request id ${requestId}).`));
    }
  }

  return async (ctx, next) => {
    const requested = ctx.path;
    if (
      !(requested === mount || requested.startsWith(`${mount}/`)) ||
      (mount === '' && !ownedAtRoot(requested, options.pages))
    )
      return next();
    setSecurityHeaders(ctx);
    if (requested === mount && mount !== '') return ctx.redirect(`${mount}/`);
    const inArea = requested.slice(mount.length);
    const file = ctx.method === 'GET' || ctx.method === 'HEAD' ? files.get(inArea) : undefined;
    if (file) {
      ctx.type = file.type;
      ctx.set('Cache-Control', 'public, max-age=3600');
      ctx.body = file.body;
      return;
    }
    ctx.set('Cache-Control', 'no-store');
    const handle = routers.get(oneRouter ? '' : segmentOf(inArea));
    if (handle) await handle(ctx, async () => undefined);
    if (ctx.body === undefined && (ctx.status === 404 || ctx.status === 405)) {
      const status = ctx.status;
      const message = status === 404 ? 'There is no such page.' : 'This page does not take that method.';
      send(ctx, errorPageIn(layoutValues(''), false, { status, message, requestId: '' }));
    }
  };
}

const PAGE_RETRY_AFTER_SECONDS = 2;
/**
 * What a page says when the database was the trouble. A busy database may come after a change
 * asked of a registrar, so the page never says that nothing was done.
 */
const PAGE_TROUBLE: Readonly<Record<DatabaseTrouble, string>> = {
  unavailable: 'The database is not answering. Try again in a few seconds.',
  'lock-wait':
    'The database waited too long for another change to finish. Reload the page in a few seconds to see whether your change was made before you make it again.',
  busy: 'The database is busy with conflicting changes. Reload the page in a few seconds to see whether your change was made before you make it again.',
};

/** An area at the root owns only its own paths (a host's other routes pass through). */
function ownedAtRoot(p: string, pages: ReadonlyArray<{ path: string }>): boolean {
  return (
    p.startsWith('/static/') || pages.some((page) => new RegExp(`^${page.path.replace(/:[^/]+/g, '[^/]+')}$`).test(p))
  );
}

function send(ctx: Koa.Context, result: PageResult): void {
  if (result.kind === 'redirect') {
    ctx.status = 303;
    ctx.set('Location', result.location);
    // htmx follows redirects itself; a full navigation for a fragment request that must leave the page.
    if (ctx.get('hx-request') === 'true') ctx.set('HX-Redirect', result.location);
    ctx.body = '';
    return;
  }
  if (result.kind === 'csv') {
    ctx.status = 200;
    ctx.type = 'text/csv; charset=utf-8';
    ctx.set('Content-Disposition', `attachment; filename="${result.filename.replace(/[^\w.-]/g, '_')}"`);
    ctx.body = toCsv(result.rows);
    return;
  }
  ctx.status = result.status;
  if (result.headers) for (const [name, value] of Object.entries(result.headers)) ctx.set(name, value);
  // The header itself: ctx.type would look the type up among every MIME type on each page.
  ctx.set('Content-Type', 'text/html; charset=utf-8');
  ctx.body = result.body;
}

async function readForm(ctx: Koa.Context): Promise<Fields> {
  const length = Number(ctx.get('content-length') || 0);
  if (length === 0 && !ctx.get('transfer-encoding')) return {};
  if (!ctx.is('application/x-www-form-urlencoded')) throw Object.assign(new Error('unsupported'), { status: 415 });
  if (length > FORM_LIMIT) throw Object.assign(new Error('too large'), { status: 413 });
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > FORM_LIMIT) throw Object.assign(new Error('too large'), { status: 413 });
    chunks.push(chunk);
  }
  return fieldsOf(new URLSearchParams(Buffer.concat(chunks).toString('utf8')));
}

function fieldsOf(params: URLSearchParams): Fields {
  const out: Record<string, string | string[]> = Object.create(null);
  for (const [key, value] of params) {
    const existing = out[key];
    out[key] = existing === undefined ? value : Array.isArray(existing) ? [...existing, value] : [existing, value];
  }
  return out;
}

/** A field as one string (the first when repeated; "" when absent). */
export function field(fields: Fields, name: string): string {
  const value = fields[name];
  return (Array.isArray(value) ? value[0] : value) ?? '';
}
