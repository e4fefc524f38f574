import { Option } from 'commander';
import { parseDomainName } from '../core/domain/domain-name';
import type { OrderStatus } from '../core/order/order';
import { flagValue, UsageError, wholeNumber, type CliRuntime } from './cli-program';
import { since } from './log-commands';
import { describeOrder } from './describe';

const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'completed', 'failed'];

export function orderCommands(cli: CliRuntime): void {
  const order = cli.group('order', 'orders placed through the API (register, renew, transfer)');

  cli
    .command(order, 'list', 'orders, newest first')
    .option('--reseller <email>', "only this reseller's orders")
    .addOption(new Option('--status <status>', 'only orders in this state').choices(ORDER_STATUSES))
    .option('--domain <name>', 'only orders for this domain')
    .option('--limit <n>', 'at most this many (the newest)', wholeNumber('limit', 1, 10_000))
    .option(
      '--since <when>',
      'only orders placed since: a date, a date-time, or a span like 24h or 7d',
      since('--since'),
    )
    .action(
      cli.action<{ reseller?: string; status?: OrderStatus; domain?: string; limit?: number; since?: Date }>(
        async ({ module }, _args, options) => {
          const { orders, resellers } = module.services;
          const resellerId = options.reseller ? (await resellers.byEmail(options.reseller)).id : undefined;
          const list = await orders.list({
            resellerId,
            status: options.status,
            domain: options.domain === undefined ? undefined : parseDomainName(options.domain).ascii,
            limit: options.limit,
          });
          const emails = new Map((await resellers.list()).map((r) => [r.id, r.email]));
          const now = new Date();
          // Newest first: those since the date are a prefix of the list, so the limit stays right.
          return list
            .filter((o) => !options.since || o.createdAt >= options.since)
            .map((o) => ({ ...describeOrder(o, now), reseller: emails.get(o.resellerId) ?? o.resellerId }));
        },
      ),
    );

  cli.command(order, 'show <order-id>', 'one order with the request it was placed with').action(
    cli.action(async ({ module }, [id]) => {
      const found = await module.services.orders.get(id);
      if (!found) throw new Error(`no order with id ${id}`);
      const reseller = await module.services.resellers.byId(found.resellerId);
      return {
        ...describeOrder(found, new Date()),
        reseller: reseller?.email ?? found.resellerId,
        request: found.request,
        originalVars: found.originalVars,
      };
    }),
  );

  cli
    .command(
      order,
      'settle <order-id>',
      'complete or refund a pending order by hand, after checking with the registrar (exactly once; docs/orders.md)',
    )
    .option('--complete', 'the registrar did it: the debit stands and the domain becomes Active')
    .option('--refund', 'the registrar did not: the price is refunded in full and the domain is Cancelled')
    .option(
      '--expiry <YYYY-MM-DD>',
      "with --complete: the registrar's expiry date (default: the period counted from the order)",
      flagValue((text) => {
        if (!/^\d{4}-\d{2}-\d{2}$/.test(text)) throw new Error('--expiry must be a date like 2027-11-21');
        return text;
      }),
    )
    .requiredOption('--note <text>', 'why, kept on the order (what the registrar said, a ticket number)')
    .action(
      cli.action<{ complete?: boolean; refund?: boolean; expiry?: string; note: string }>(
        async ({ module }, [id], options) => {
          if (options.complete === options.refund) throw new UsageError('give exactly one of --complete and --refund');
          if (options.refund && options.expiry !== undefined)
            throw new UsageError('--expiry goes with --complete only');
          const settled = await module.services.orders.settleByOperator(id, {
            outcome: options.complete ? 'complete' : 'refund',
            note: options.note,
            ...(options.expiry !== undefined && { expiryDate: options.expiry }),
          });
          return describeOrder(settled, new Date());
        },
      ),
    );
}
