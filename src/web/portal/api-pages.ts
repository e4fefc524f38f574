import { tokenHour } from '../../core/auth/api-token';
import { checkToken } from '../../core/auth/token-checker';
import { DomainError } from '../../core/common/errors';
import { parseDomainName } from '../../core/domain/domain-name';
import { TOKENS } from '../../core/tokens';
import { field } from '../web-app';
import { WEB_TOKENS } from '../web-tokens';
import { wholeNumberOf } from '../console/list-support';
import type { PortalContext, PortalPage } from './portal-access';

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
      return ctx.render('api-key', { pageTitle: 'New API key', apiKey, endpoint: endpointOf(ctx) });
    },
  },
  {
    method: 'post',
    path: '/api/allow-ip',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      await ctx.resolve(TOKENS.resellerService).allowNetwork(reseller.email, field(ctx.form, 'cidr'));
      return ctx.redirect('/api?notice=allowed');
    },
  },
  {
    method: 'post',
    path: '/api/disallow-ip',
    access: 'reseller',
    handler: async (ctx) => {
      const { reseller } = ctx.principal;
      await ctx.resolve(TOKENS.resellerService).disallowNetwork(reseller.email, field(ctx.form, 'cidr'));
      return ctx.redirect('/api?notice=disallowed');
    },
  },
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

async function apiPage(ctx: PortalContext, extra: Record<string, unknown> = {}) {
  const { reseller } = ctx.principal;
  const now = ctx.resolve(TOKENS.clock).now();
  const { allowedNetworks } = await ctx.resolve(TOKENS.resellerService).allowedNetworks(reseller.email);
  const notice = { allowed: 'The address is on the allow-list.', disallowed: 'The address is off the allow-list.' }[
    field(ctx.query, 'notice')
  ];
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
