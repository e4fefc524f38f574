import type { ServiceIdentifier } from 'inversify';
import type { Actor } from '../core/audit/audit-log';
import type { NamedPrincipal, WebSession } from './sessions';

/** A page's answer: HTML (a whole page or an htmx fragment), a redirect after a change, or a CSV file. */
export type PageResult =
  | {
      readonly kind: 'html';
      readonly status: number;
      readonly body: string;
      /** Extra response headers, like Retry-After on a 429. */
      readonly headers?: Readonly<Record<string, string>>;
    }
  | { readonly kind: 'redirect'; readonly location: string }
  | { readonly kind: 'csv'; readonly filename: string; readonly rows: ReadonlyArray<ReadonlyArray<unknown>> };

/** A form or query: every field as the browser sent it (a repeated field is a list). */
export type Fields = Readonly<Record<string, string | string[] | undefined>>;

export interface PageContext<Principal> {
  /** The signed-in principal; undefined only on `public` pages. */
  readonly principal: Principal;
  readonly session: WebSession | undefined;
  readonly params: Readonly<Record<string, string>>;
  readonly query: Fields;
  /** The POST body (application/x-www-form-urlencoded); empty on GET. */
  readonly form: Fields;
  /** True for htmx requests (HX-Request): answer with the fragment, not the whole page. */
  readonly isFragment: boolean;
  readonly requestId: string;
  readonly clientIp: string;
  /** The origin the browser asked, like "https://admin.example.com" (TRUST_PROXY decides whether forwarded headers count). */
  readonly origin: string;
  readonly userAgent: string;
  /** The principal as the audit log records it, with this request's address and id. */
  readonly actor: Actor;
  /** Resolves a core service from the container (memoised). */
  readonly resolve: <T>(token: ServiceIdentifier<T>) => T;
  /** A path under the area's mount, like url('/resellers') → "/admin/resellers". */
  readonly url: (path: string) => string;
  /**
   * Renders a template of the area (`templates/<area>/<name>.eta`) inside the layout; for an htmx
   * request, the `fragment` template alone when one is named.
   */
  render(
    template: string,
    data?: Record<string, unknown>,
    options?: { status?: number; fragment?: string; headers?: Readonly<Record<string, string>> },
  ): PageResult;
  redirect(path: string): PageResult;
  csv(filename: string, rows: ReadonlyArray<ReadonlyArray<unknown>>): PageResult;
  /** Sign-in steps only: starts, advances or ends the session and sets or clears the cookie. */
  readonly signIn: SignInControl;
  /**
   * The page's early read (`Page.early`) when the area started it for this request, else
   * undefined. Only `readingEarly` pages use it.
   */
  readonly early: Promise<unknown> | undefined;
}

/** What a page's early read may use: the request, never who sent it. */
export type EarlyRequest = Pick<PageContext<unknown>, 'query' | 'params' | 'resolve'>;

export interface SignInControl {
  start(
    principalKind: WebSession['principalKind'],
    principalId: string,
    stage: WebSession['stage'],
    data?: Record<string, string>,
  ): Promise<void>;
  advance(stage: WebSession['stage'], data?: Record<string, string>): Promise<void>;
  end(): Promise<void>;
}

/**
 * One page of an area: method, path (koa-router syntax, relative to the mount), the access rule
 * it states, and a handler that calls the core's services. `Access` is the area's own list of
 * rules (the console's: public, sign_in_step, viewer, admin).
 */
export interface Page<Principal, Access extends string> {
  readonly method: 'get' | 'post';
  readonly path: string;
  readonly access: Access;
  readonly handler: (ctx: PageContext<Principal>) => Promise<PageResult>;
  /**
   * Optional, GET pages only (made by `readingEarly`): the page's main read, which depends on the
   * request alone. For a session this process has served before, the area starts it alongside the
   * session read; the handler gets it only once the session is read and allowed the page, and no
   * answer leaves before it has settled. Undefined when the request has no such read.
   */
  readonly early?: (request: EarlyRequest) => Promise<unknown> | undefined;
}

/**
 * A GET page whose main read (`read`: reads only, from the request alone, never from who sent
 * it) may start alongside the session read. The handler is given that read's promise (started
 * early, or now), or undefined when `read` has none for this request.
 */
export function readingEarly<Principal, Access extends string, T>(page: {
  readonly path: string;
  readonly access: Access;
  readonly read: (request: EarlyRequest) => Promise<T> | undefined;
  readonly handler: (ctx: PageContext<Principal>, read: Promise<T> | undefined) => Promise<PageResult>;
}): Page<Principal, Access> {
  return {
    method: 'get',
    path: page.path,
    access: page.access,
    early: page.read,
    // ctx.early is only ever this page's own `read` (web-app.ts starts nothing else).
    handler: (ctx) => page.handler(ctx, (ctx.early as Promise<T> | undefined) ?? page.read(ctx)),
  };
}

/** How an area decides who is signed in and what each access rule allows. */
export interface AreaRules<Principal, Access extends string> {
  /** Access rules that need no session (sign-in, set-password). */
  readonly publicAccess: readonly Access[];
  /**
   * The principal of whom a session names (read with the session, fresh on every request), or
   * undefined when it may not use the area (another kind, gone, disabled, suspended).
   */
  principalOf(named: NamedPrincipal | undefined): Principal | undefined;
  /** Whether the principal, at the session's stage, may use a page with this rule. */
  allows(access: Access, principal: Principal, session: WebSession): boolean;
  /** Where someone who may not use a page is sent: the sign-in page, or the step of sign-in it owes. */
  redirectFor(session: WebSession | undefined): string;
  /** How the audit log names the principal. */
  actorOf(principal: Principal): Pick<Actor, 'kind' | 'id' | 'label'>;
  /** Layout values every page of the area gets (navigation, who is signed in). */
  layout(principal: Principal | undefined, session: WebSession | undefined): Record<string, unknown>;
}
