import type { CliRuntime } from './cli-program';
import { describeDomain } from './describe';

export function domainCommands(cli: CliRuntime): void {
  const domain = cli.group('domain', 'the domains on the platform, as we hold them');

  cli.command(domain, 'show <domain>', 'one domain as we hold it').action(
    cli.action(async ({ module }, [name]) => {
      const { domains, resellers } = module.services;
      const record = await domains.show(name);
      return describeDomain(record, await resellers.byId(record.resellerId));
    }),
  );

  cli
    .command(domain, 'list', 'every domain, or those of one reseller')
    .option('--reseller <email>', "only this reseller's domains")
    .action(
      cli.action<{ reseller?: string }>(async ({ module }, _args, options) => {
        const { domains, resellers } = module.services;
        const owner = options.reseller ? await resellers.byEmail(options.reseller) : undefined;
        // One lookup of the owners for the whole list, not one per domain.
        const [list, owners] = await Promise.all([
          domains.list({ resellerId: owner?.id }),
          owner ? [owner] : resellers.list(),
        ]);
        const byId = new Map(owners.map((r) => [r.id, r]));
        return list.map((d) => describeDomain(d, byId.get(d.resellerId)));
      }),
    );
}
