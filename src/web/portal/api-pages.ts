import { tokenHour } from '../../core/auth/api-token';
import { checkToken } from '../../core/auth/token-checker';
import { DomainError } from '../../core/common/errors';
import { parseDomainName } from '../../core/domain/domain-name';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import { wholeNumberOf } from '../console/list-support';
import type { PortalContext, PortalPage } from './portal-access';

/** Where the session keeps a rotated key until the page that shows it once. */
const NEW_KEY = 'newApiKey';
/** A rotated key not shown within this long is not shown at all (rotate again). */
const NEW_KEY_SHOWN_FOR_MS = 10 * 60_000;

/** The reseller's API: address and username, key rotation, IP allow-list, the token checker, its API log, integration steps. */
export const API_PAGES: readonly PortalPage[] = [
  {
    method: 'get',
    path: '/api',
    access: 'reseller',
    handler: (ctx) => apiPage(ctx),
  },
  {
    method: 'post',
    path: '/api/rotate-key',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      // The old key is refused from the next request on, on every process (no authentication cache: ADR 9).
      const apiKey = await ctx.resolve(TOKENS.resellerService).rotateKey(reseller.email);
      // Post/redirect/get: a reload of the page that shows the key must not rotate it again. The key
      // waits in the session, sealed with the master key, for the one page that shows it.
      const sealed = ctx
        .resolve(TOKENS.secretBox)
        .seal(JSON.stringify({ apiKey, until: ctx.resolve(TOKENS.clock).now().getTime() + NEW_KEY_SHOWN_FOR_MS }));
      await ctx.resolve(WEB_TOKENS.sessions).setData(ctx.session!, { ...ctx.session!.data, [NEW_KEY]: sealed });
      return ctx.redirect('/api/new-key');
    },
  },
  {
    method: 'get',
    path: '/api/new-key',
    access: 'reseller',
    handler: async (ctx) => {
      const session = ctx.session!;
      const sealed = session.data[NEW_KEY];
      if (sealed === undefined) return ctx.redirect('/api?notice=key_shown');
      // Taken from the session before it is shown: a reload, or a second tab, finds it gone.
      const { [NEW_KEY]: _taken, ...rest } = session.data;
      await ctx.resolve(WEB_TOKENS.sessions).setData(session, rest);
      const { apiKey, until } = JSON.parse(ctx.resolve(TOKENS.secretBox).open(sealed)) as {
        apiKey: string;
        until: number;
      };
      if (ctx.resolve(TOKENS.clock).now().getTime() > until) return ctx.redirect('/api?notice=key_shown');
      return ctx.render('api-key', { pageTitle: 'New API key', apiKey, endpoint: endpointOf(ctx) });
    },
  },
  allowListChange('/api/allow-ip', 'allowNetwork', 'allowed'),
  allowListChange('/api/disallow-ip', 'disallowNetwork', 'disallowed'),
  {
    method: 'post',
    path: '/api/check-token',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      const found = await ctx.resolve(TOKENS.resellerDirectory).findForAuthentication(reseller.email);
      if (!found) throw new DomainError('forbidden', 'This reseller account cannot use the API');
      const username = field(ctx.form, 'username').trim() || reseller.email;
      const check = checkToken({
        token: field(ctx.form, 'token').slice(0, 2048),
        username: username.slice(0, 254),
        email: reseller.email,
        apiKey: found.apiKey,
        now: ctx.resolve(TOKENS.clock).now(),
        timestamp: field(ctx.form, 'timestamp').trim().slice(0, 20) || undefined,
      });
      return apiPage(ctx, { check, checkedUsername: username });
    },
  },
  {
    method: 'get',
    path: '/api-log',
    access: 'reseller',
    handler: async (ctx) => {
      const hours = wholeNumberOf(field(ctx.query, 'hours').trim(), 'hours') ?? 24;
      const domainText = field(ctx.query, 'domain').trim();
      const clock = ctx.resolve(TOKENS.clock);
      const entries = await ctx.resolve(TOKENS.apiLogService).find(ctx.principal.reseller.id, {
        since: new Date(clock.now().getTime() - hours * 3_600_000),
        domain: domainText ? parseDomainName(domainText).ascii : undefined,
        limit: 500,
      });
      return ctx.render('api-log', { pageTitle: 'API log', entries, filters: { hours, domain: domainText } });
    },
  },
  {
    method: 'get',
    path: '/integration',
    access: 'reseller',
    handler: async (ctx) =>
      ctx.render('integration', {
        pageTitle: 'Integration',
        endpoint: endpointOf(ctx),
        dropIn: dropInOf(ctx),
        email: ctx.principal.reseller.email,
      }),
  },
];

/** The form that puts an address (`cidr`) on the IP allow-list or takes it off, then back to the API page saying so. */
function allowListChange(
  path: string,
  change: 'allowNetwork' | 'disallowNetwork',
  notice: 'allowed' | 'disallowed',
): PortalPage {
  return {
    method: 'post',
    path,
    access: 'reseller',
    handler: async (ctx) => {
      await ctx.resolve(TOKENS.resellerService)[change](ctx.principal.reseller.email, field(ctx.form, 'cidr'));
      return ctx.redirect(`/api?notice=${notice}`);
    },
  };
}

async function apiPage(ctx: PortalContext, extra: Record<string, unknown> = {}) {
  const { reseller } = ctx.principal;
  const now = ctx.resolve(TOKENS.clock).now();
  const { allowedNetworks } = await ctx.resolve(TOKENS.resellerService).allowedNetworks(reseller.email);
  const notice = {
    allowed: 'The address is on the allow-list.',
    disallowed: 'The address is off the allow-list.',
    key_shown: 'A new API key is shown only once, right after it is made; rotate the key again if you did not copy it.',
  }[field(ctx.query, 'notice')];
  return ctx.render('api', {
    pageTitle: 'API',
    endpoint: endpointOf(ctx),
    dropIn: dropInOf(ctx),
    email: reseller.email,
    allowedNetworks,
    serverTime: now.toISOString().replace(/\.\d{3}Z$/, 'Z'),
    serverHour: tokenHour(now),
    clientIp: ctx.clientIp,
    notice,
    ...extra,
  });
}

/** Where the API answers: PUBLIC_URL when set, else the server's own address. */
function endpointOf(ctx: PortalContext): string {
  const settings = ctx.resolve(WEB_TOKENS.settings);
  return settings.publicUrl ?? `http://127.0.0.1:${settings.port}`;
}

/** The drop-in address for billing modules that expect the deployed product's path (BASE_PATH), when set. */
function dropInOf(ctx: PortalContext): string | undefined {
  const settings = ctx.resolve(WEB_TOKENS.settings);
  return settings.basePath ? `${endpointOf(ctx)}${settings.basePath}` : undefined;
}
