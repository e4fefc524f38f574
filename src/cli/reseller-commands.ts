import { formatAmount, parseAmount } from '../core/common/money';
import type { CliRuntime } from './cli-program';
import { currentActor } from '../core/audit/audit-log';

export function resellerCommands(cli: CliRuntime): void {
  const reseller = cli.group('reseller', 'reseller accounts, their API keys and IP allow-lists');

  cli
    .command(reseller, 'create <email>', 'create a reseller; prints its API key, the only time it is shown')
    .requiredOption('--group <name>', 'the group whose prices the reseller pays')
    .option('--credit <amount>', 'opening credit, like 100.00')
    .action(
      cli.action<{ group: string; credit?: string }>(async ({ module }, [email], options) => {
        const opening = options.credit === undefined ? 0 : parseAmount(options.credit, '--credit');
        const { reseller: created, apiKey } = await module.services.resellers.create(email, options.group, opening);
        return { email: created.email, apiKey };
      }),
    );

  cli
    .command(
      reseller,
      'invite <email>',
      'a one-time link (24 h) for the reseller to set its portal password (its first, or a forgotten one)',
    )
    .action(
      cli.action(async ({ module }, [email]) => {
        const invitation = await module.services.portalLogins.invite(currentActor(), email);
        const { settings } = module;
        const base = settings.publicUrl ?? `http://127.0.0.1:${settings.port}`;
        const mount = settings.portalPath === '/' ? '' : settings.portalPath;
        return {
          email: invitation.reseller.email,
          invitationLink: `${base}${mount}/invitation?token=${invitation.token}`,
          linkExpiresAt: invitation.expiresAt.toISOString(),
          note: settings.publicUrl
            ? 'works once, for 24 hours; earlier links stop working'
            : 'works once, for 24 hours; set PUBLIC_URL so that the link names the address people open',
        };
      }),
    );

  cli
    .command(
      reseller,
      'reset-portal-2fa <email>',
      "remove the reseller's portal second factor (a lost phone); its portal sessions end at once",
    )
    .action(
      cli.action(async ({ module }, [email]) => {
        const found = await module.services.resellers.byEmail(email);
        await module.services.portalLogins.removeSecondFactor(currentActor(), found.id);
        await module.webSessions.endAllOf('reseller', found.id);
        return { email: found.email, hasSecondFactor: false };
      }),
    );

  cli
    .command(reseller, 'rotate-key <email>', 'issue a new API key; tokens made with the old one stop working')
    .action(cli.action(async ({ module }, [email]) => ({ apiKey: await module.services.resellers.rotateKey(email) })));

  for (const [verb, status, description] of [
    ['suspend', 'suspended', 'refuse every API call of the reseller'],
    ['activate', 'active', 'let a suspended reseller call the API again'],
  ] as const) {
    cli.command(reseller, `${verb} <email>`, description).action(
      cli.action(async ({ module }, [email]) => {
        const changed = await module.services.resellers.setStatus(email, status);
        return { email: changed.email, status: changed.status };
      }),
    );
  }

  cli
    .command(
      reseller,
      'change-email <email> <new-email>',
      'change the email, which is also the API username: its billing platform must then use the new one',
    )
    .action(
      cli.action(async ({ module }, [email, newEmail]) => {
        const changed = await module.services.resellers.changeEmail(email, newEmail);
        return { email: changed.email, previousEmail: email.trim().toLowerCase() };
      }),
    );

  cli
    .command(
      reseller,
      'move <email>',
      "move the reseller to another group: the group's prices apply from its next order",
    )
    .requiredOption('--group <name>', 'the group it moves to')
    .action(
      cli.action<{ group: string }>(async ({ module }, [email], { group }) => {
        await module.services.resellers.changeGroup(email, group);
        return { email: email.trim().toLowerCase(), group };
      }),
    );

  cli
    .command(
      reseller,
      'close <email>',
      'end the account: refused while it holds credit, has an order in progress, or holds domains it does not hand over; a closed reseller cannot call the API',
    )
    .option('--move-domains-to <email>', 'the active reseller that takes over its domains, in the same step')
    .action(
      cli.action<{ moveDomainsTo?: string }>(async ({ module }, [email], { moveDomainsTo }) => {
        const closed = await module.services.resellers.close(email, { moveDomainsTo });
        return {
          email: closed.reseller.email,
          status: closed.reseller.status,
          ...(closed.movedTo && { movedDomains: closed.movedDomains, movedTo: closed.movedTo.email }),
        };
      }),
    );

  cli.command(reseller, 'show <email>', 'one reseller: status, group, balance, IP allow-list').action(
    cli.action(async ({ module }, [email]) => {
      const { resellers, credit } = module.services;
      const found = await resellers.byEmail(email);
      const [groups, balance, { allowedNetworks }] = await Promise.all([
        resellers.listGroups(),
        credit.balance(found.id),
        resellers.allowedNetworks(found.email),
      ]);
      return {
        email: found.email,
        status: found.status,
        group: groups.find((g) => g.id === found.groupId)?.name ?? null,
        balance: formatAmount(balance),
        allowedNetworks,
        createdAt: found.createdAt.toISOString(),
      };
    }),
  );

  cli.command(reseller, 'list', 'list the resellers with their balance').action(
    cli.action(async ({ module }) => {
      const { resellers, credit } = module.services;
      return Promise.all(
        (await resellers.list()).map(async (r) => ({
          email: r.email,
          status: r.status,
          balance: formatAmount(await credit.balance(r.id)),
        })),
      );
    }),
  );

  cli
    .command(
      reseller,
      'allow-ip <email> <cidr>',
      'add a range to the IP allow-list (requests must then come from an allowed range; a bare address is one host)',
    )
    .action(cli.action(({ module }, [email, cidr]) => module.services.resellers.allowNetwork(email, cidr)));

  cli
    .command(
      reseller,
      'disallow-ip <email> <cidr>',
      'remove a range from the IP allow-list (with the last range gone, any address is allowed again)',
    )
    .action(cli.action(({ module }, [email, cidr]) => module.services.resellers.disallowNetwork(email, cidr)));

  cli
    .command(reseller, 'allowed-ips <email>', "show the reseller's IP allow-list")
    .action(cli.action(({ module }, [email]) => module.services.resellers.allowedNetworks(email)));

  cli
    .command(
      reseller,
      'set-low-credit <email> <amount>',
      'publish credit.low (and mail the reseller) when the balance falls below the amount; 0 turns it off',
    )
    .action(
      cli.action(async ({ module }, [email, amount]) => {
        const threshold = parseAmount(amount, 'amount');
        const { resellers } = module.services;
        const found = await resellers.byEmail(email);
        const status = await resellers.setLowCreditThreshold(found.id, threshold);
        return {
          email: found.email,
          lowCreditThreshold: status.threshold === null ? null : formatAmount(status.threshold),
          balance: formatAmount(status.balance),
          isLow: status.isLow,
        };
      }),
    );
}
