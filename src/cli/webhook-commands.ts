import type { WebhookDelivery, WebhookEndpoint } from '../core/webhooks/webhook';
import { type CliRuntime, UsageError, wholeNumber } from './cli-program';

const STATUSES = ['pending', 'delivered', 'dead'] as const;

const iso = (date: Date | null) => date?.toISOString() ?? null;

function endpointView(e: WebhookEndpoint, owner: string | null) {
  return {
    id: e.id,
    owner: owner ?? 'operator',
    url: e.url,
    events: e.eventTypes ?? 'all',
    status: e.status,
    disabledReason: e.disabledReason,
    failingSince: iso(e.failingSince),
    createdAt: iso(e.createdAt),
  };
}

function deliveryView(d: WebhookDelivery) {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    attempts: d.attempts,
    nextAttemptAt: d.status === 'pending' ? iso(d.nextAttemptAt) : null,
    lastStatus: d.lastStatus,
    lastError: d.lastError,
    lastAttemptAt: iso(d.lastAttemptAt),
    deliveredAt: iso(d.deliveredAt),
  };
}

/** `reseller-admin webhook …`: endpoints per reseller or operator-wide, their deliveries, replay (docs/events.md). */
export function webhookCommands(cli: CliRuntime): void {
  const webhook = cli.group('webhook', 'webhook endpoints (a reseller’s or operator-wide) and their deliveries');

  cli
    .command(
      webhook,
      'add <email-or-url> [url]',
      "add an endpoint for a reseller's events (or, with --operator, every reseller's); prints its secret, the only time it is shown",
    )
    .option('--operator', "an operator-wide endpoint: every reseller's events")
    .option('--events <types>', 'only these event types, comma-separated (default: all)')
    .action(
      cli.action<{ operator?: boolean; events?: string }>(async ({ module }, args, options) => {
        // `webhook add EMAIL URL`, or `webhook add --operator URL`.
        if (options.operator && args[1] !== undefined)
          throw new UsageError('give either a reseller email or --operator, not both');
        if (!options.operator && args[1] === undefined)
          throw new UsageError('give the reseller email and the URL, or --operator and the URL');
        const [email, url] = options.operator ? [undefined, args[0]] : [args[0], args[1]];
        const { resellers, webhooks } = module.services;
        const reseller = email === undefined ? undefined : await resellers.byEmail(email);
        const { endpoint, secret } = await webhooks.add(
          reseller ? { resellerId: reseller.id } : 'operator',
          url ?? '',
          options.events?.split(','),
        );
        return { ...endpointView(endpoint, reseller?.email ?? null), secret };
      }),
    );

  cli
    .command(webhook, 'list', 'the endpoints, of one reseller or the operator’s with the flags')
    .option('--reseller <email>', "one reseller's endpoints")
    .option('--operator', 'the operator-wide endpoints')
    .action(
      cli.action<{ reseller?: string; operator?: boolean }>(async ({ module }, _args, options) => {
        const { resellers, webhooks } = module.services;
        const reseller = options.reseller ? await resellers.byEmail(options.reseller) : undefined;
        const endpoints = await webhooks.list(reseller ? reseller.id : options.operator ? null : undefined);
        const emails = new Map((await resellers.list()).map((r) => [r.id, r.email]));
        return endpoints.map((e) =>
          endpointView(e, e.resellerId === null ? null : (emails.get(e.resellerId) ?? e.resellerId)),
        );
      }),
    );

  cli
    .command(webhook, 'deliveries', 'deliveries, newest first')
    .option('--endpoint <id>', "one endpoint's")
    .option('--status <status>', `only ${STATUSES.join(', ')}`)
    .option('--limit <n>', 'at most this many (default 100)', wholeNumber('limit', 1, 1000))
    .action(
      cli.action<{ endpoint?: string; status?: string; limit?: number }>(async ({ module }, _args, options) => {
        const status = options.status;
        if (status !== undefined && !(STATUSES as readonly string[]).includes(status))
          throw new UsageError(`--status must be one of ${STATUSES.join(', ')}`);
        const deliveries = await module.services.webhooks.deliveries({
          ...(options.endpoint ? { endpointId: options.endpoint } : {}),
          ...(status ? { status: status as (typeof STATUSES)[number] } : {}),
          limit: options.limit ?? 100,
        });
        return deliveries.map(deliveryView);
      }),
    );

  cli
    .command(webhook, 'replay <delivery-id>', 'send a dead delivery again, with the same webhook-id')
    .action(cli.action(async ({ module }, [id]) => deliveryView(await module.services.webhooks.replay(id ?? ''))));

  cli
    .command(webhook, 'rotate-secret <id>', 'a new secret, printed once; the previous one keeps signing for 24 hours')
    .action(
      cli.action(async ({ module }, [id]) => {
        const { endpoint, secret, previousSecretUntil } = await module.services.webhooks.rotateSecret(id ?? '');
        return { id: endpoint.id, secret, previousSecretValidUntil: previousSecretUntil.toISOString() };
      }),
    );

  cli.command(webhook, 'enable <id>', 'send to a disabled endpoint again').action(
    cli.action(async ({ module }, [id]) => {
      const endpoint = await module.services.webhooks.enable(id ?? '');
      return { id: endpoint.id, status: endpoint.status };
    }),
  );

  cli.command(webhook, 'remove <id>', 'remove the endpoint and its deliveries').action(
    cli.action(async ({ module }, [id]) => {
      await module.services.webhooks.remove(id ?? '');
      return { id, removed: true };
    }),
  );
}
