import { EVENT_TYPES } from '../../client/events';
import { DomainError } from '../../core/common/errors';
import { TOKENS } from '../../core/tokens';
import type { DeliveryStatus } from '../../core/webhooks/webhook';
import type { Fields, Page, PageContext, PageResult } from '../page-table';
import { field } from '../web-app';
import type { ConsolePage } from './console-access';

const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'dead'];

const NOTICES: Readonly<Record<string, string>> = {
  removed: 'The endpoint was removed with its deliveries.',
  enabled: 'The endpoint is enabled: new events are sent to it again. Replay its dead deliveries below.',
  replayed: 'The delivery is pending again and is sent shortly, with the same webhook-id.',
};

/**
 * Where the webhook pages are shown and whose endpoints they manage: the console (every
 * endpoint, operator-wide ones included; changes for admins) or the portal (the signed-in
 * reseller's own: another's endpoint or delivery answers as one that does not exist).
 */
export interface WebhookArea<Principal, Access extends string> {
  readonly read: Access;
  readonly change: Access;
  /** The reseller the pages are confined to; undefined in the console. */
  resellerOf(ctx: PageContext<Principal>): string | undefined;
  /** The owner of a new endpoint, from the add form. */
  ownerOf(ctx: PageContext<Principal>): Promise<{ resellerId: string } | 'operator'>;
}

function eventTypesOf(form: Fields): string[] {
  const value = form.events;
  return (Array.isArray(value) ? value : value ? [value] : []).map(String);
}

function statusOf(query: Fields): DeliveryStatus | undefined {
  const status = field(query, 'status').trim();
  if (status === '') return undefined;
  if (!(STATUSES as readonly string[]).includes(status))
    throw new DomainError('validation_failed', `the status is one of ${STATUSES.join(', ')}`);
  return status as DeliveryStatus;
}

/**
 * The endpoints, deliveries and their changes, for one area (docs/console.md#pages,
 * docs/portal.md#pages). The service writes each change's audit entry in the change's own
 * transaction, with the signed-in operator or reseller as actor (ADR 17).
 */
export function webhookPages<Principal, Access extends string>(
  area: WebhookArea<Principal, Access>,
): Page<Principal, Access>[] {
  const service = (ctx: PageContext<Principal>) => ctx.resolve(TOKENS.webhookService);
  /** The owners' emails, for the console's list (a reseller sees only its own). */
  const ownerEmails = async (ctx: PageContext<Principal>, ids: ReadonlyArray<string | null>) => {
    const emails = new Map<string, string>();
    if (area.resellerOf(ctx) !== undefined) return emails;
    const resellers = ctx.resolve(TOKENS.resellerService);
    for (const id of new Set(ids)) if (id !== null) emails.set(id, (await resellers.byId(id))?.email ?? id);
    return emails;
  };
  const render = (ctx: PageContext<Principal>, template: string, values: Record<string, unknown>): PageResult =>
    ctx.render(template, { ...values, isConsole: area.resellerOf(ctx) === undefined });
  const secretPage = (ctx: PageContext<Principal>, title: string, values: Record<string, unknown>) =>
    render(ctx, 'webhook-secret', { pageTitle: title, ...values });

  return [
    {
      method: 'get',
      path: '/webhooks',
      access: area.read,
      handler: async (ctx) => {
        const resellerId = area.resellerOf(ctx);
        const endpoints = await service(ctx).list(resellerId);
        const owners = await ownerEmails(
          ctx,
          endpoints.map((e) => e.resellerId),
        );
        return render(ctx, 'webhooks', {
          pageTitle: 'Webhooks',
          endpoints: endpoints.map((e) => ({
            ...e,
            owner: e.resellerId === null ? 'operator (every reseller)' : (owners.get(e.resellerId) ?? 'you'),
          })),
          eventTypes: EVENT_TYPES,
          notice: NOTICES[field(ctx.query, 'notice')],
        });
      },
    },
    {
      method: 'post',
      path: '/webhooks',
      access: area.change,
      handler: async (ctx) => {
        const owner = await area.ownerOf(ctx);
        const { endpoint, secret } = await service(ctx).add(owner, field(ctx.form, 'url'), eventTypesOf(ctx.form));
        return secretPage(ctx, 'Endpoint added', { endpoint, secret, created: true });
      },
    },
    {
      method: 'get',
      path: '/webhooks/deliveries',
      access: area.read,
      handler: async (ctx) => {
        const resellerId = area.resellerOf(ctx);
        const status = statusOf(ctx.query);
        const endpointId = field(ctx.query, 'endpoint').trim() || undefined;
        const deliveries = await service(ctx).deliveries({ resellerId, status, endpointId, limit: 200 });
        return render(ctx, 'webhook-deliveries', {
          pageTitle: 'Webhook deliveries',
          deliveries,
          statuses: STATUSES,
          filters: { status: status ?? '', endpoint: endpointId ?? '' },
          notice: NOTICES[field(ctx.query, 'notice')],
        });
      },
    },
    {
      method: 'post',
      path: '/webhooks/deliveries/:id/replay',
      access: area.change,
      handler: async (ctx) => {
        const delivery = await service(ctx).replay(ctx.params.id!, area.resellerOf(ctx));
        return ctx.redirect(`/webhooks/deliveries?endpoint=${encodeURIComponent(delivery.endpointId)}&notice=replayed`);
      },
    },
    {
      method: 'get',
      path: '/webhooks/:id',
      access: area.read,
      handler: async (ctx) => {
        const resellerId = area.resellerOf(ctx);
        const endpoint = await service(ctx).endpoint(ctx.params.id!, resellerId);
        const owners = await ownerEmails(ctx, [endpoint.resellerId]);
        const deliveries = await service(ctx).deliveries({ resellerId, endpointId: endpoint.id, limit: 20 });
        return render(ctx, 'webhook', {
          pageTitle: 'Webhook endpoint',
          endpoint,
          owner:
            endpoint.resellerId === null ? 'operator (every reseller)' : (owners.get(endpoint.resellerId) ?? 'you'),
          deliveries,
          notice: NOTICES[field(ctx.query, 'notice')],
        });
      },
    },
    {
      method: 'post',
      path: '/webhooks/:id/rotate-secret',
      access: area.change,
      handler: async (ctx) => {
        const rotated = await service(ctx).rotateSecret(ctx.params.id!, area.resellerOf(ctx));
        return secretPage(ctx, 'New signing secret', {
          endpoint: rotated.endpoint,
          secret: rotated.secret,
          previousSecretUntil: rotated.previousSecretUntil,
          created: false,
        });
      },
    },
    {
      method: 'post',
      path: '/webhooks/:id/enable',
      access: area.change,
      handler: async (ctx) => {
        const endpoint = await service(ctx).enable(ctx.params.id!, area.resellerOf(ctx));
        return ctx.redirect(`/webhooks/${encodeURIComponent(endpoint.id)}?notice=enabled`);
      },
    },
    {
      method: 'post',
      path: '/webhooks/:id/remove',
      access: area.change,
      handler: async (ctx) => {
        const endpoint = await service(ctx).endpoint(ctx.params.id!, area.resellerOf(ctx));
        await service(ctx).remove(endpoint.id, area.resellerOf(ctx));
        return ctx.redirect('/webhooks?notice=removed');
      },
    },
  ];
}

/** The console's: every endpoint; admins change them. An endpoint is a reseller's when its email is given, else operator-wide. */
export const WEBHOOK_PAGES: readonly ConsolePage[] = webhookPages({
  read: 'viewer',
  change: 'admin',
  resellerOf: () => undefined,
  ownerOf: async (ctx) => {
    const email = field(ctx.form, 'reseller').trim();
    if (email === '') return 'operator';
    return { resellerId: (await ctx.resolve(TOKENS.resellerService).byEmail(email)).id };
  },
});
