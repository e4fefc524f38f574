import { Option } from 'commander';
import { parseDomainName } from '../core/domain/domain-name';
import type { OrderStatus } from '../core/order/order';
import type { CliRuntime } from './cli-program';
import { describeOrder } from './describe';

const ORDER_STATUSES: readonly OrderStatus[] = ['pending', 'completed', 'failed'];

export function orderCommands(cli: CliRuntime): void {
  const order = cli.group('order', 'orders placed through the API (register, renew, transfer)');

  cli
    .command(order, 'list', 'orders, newest first')
    .option('--reseller <email>', "only this reseller's orders")
    .addOption(new Option('--status <status>', 'only orders in this state').choices(ORDER_STATUSES))
    .option('--domain <name>', 'only orders for this domain')
    .action(
      cli.action<{ reseller?: string; status?: OrderStatus; domain?: string }>(async ({ module }, _args, options) => {
        const { orders, resellers } = module.services;
        const resellerId = options.reseller ? (await resellers.byEmail(options.reseller)).id : undefined;
        const list = await orders.list({
          resellerId,
          status: options.status,
          domain: options.domain === undefined ? undefined : parseDomainName(options.domain).ascii,
        });
        return list.map(describeOrder);
      }),
    );

  cli.command(order, 'show <order-id>', 'one order with the request it was placed with').action(
    cli.action(async ({ module }, [id]) => {
      const found = await module.services.orders.get(id);
      if (!found) throw new Error(`no order with id ${id}`);
      return { ...describeOrder(found), request: found.request, originalVars: found.originalVars };
    }),
  );
}
