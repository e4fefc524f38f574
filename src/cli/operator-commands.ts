import { currentActor } from '../core/audit/audit-log';
import type { Operator } from '../core/operator/operator';
import type { SetPasswordLink } from '../core/operator/operator-service';
import type { ResellerModule } from '../module';
import type { CliRuntime } from './cli-program';

/** `reseller-admin operator …`: the console's accounts. Every change is in the audit log, by "cli:<shell user>". */
export function operatorCommands(cli: CliRuntime): void {
  const operator = cli.group('operator', "the operator console's accounts (docs/console.md)");

  cli
    .command(operator, 'create <email>', 'create an operator; prints a one-time link (24 h) to set the password')
    .requiredOption('--role <role>', 'admin (changes things) or viewer (sees everything, changes nothing)')
    .action(
      cli.action<{ role: string }>(async ({ module }, [email], options) =>
        withLink(module, await module.services.operators.create(currentActor(), email, options.role)),
      ),
    );

  cli
    .command(operator, 'password-link <email>', 'a new one-time link (24 h) to set the password (a forgotten password)')
    .action(
      cli.action(async ({ module }, [email]) =>
        withLink(module, await module.services.operators.passwordLink(currentActor(), email)),
      ),
    );

  cli
    .command(operator, 'list', 'every operator, its role and whether it has a password and a second factor')
    .action(cli.action(async ({ module }) => (await module.services.operators.list()).map(shown)));

  cli.command(operator, 'disable <email>', 'stop an operator from signing in; its sessions end at once').action(
    cli.action(async ({ module }, [email]) => {
      const disabled = await module.services.operators.disable(currentActor(), email);
      await module.webSessions.endAllOf('operator', disabled.id);
      return shown(disabled);
    }),
  );

  cli
    .command(operator, 'enable <email>', 'let a disabled operator sign in again')
    .action(
      cli.action(async ({ module }, [email]) => shown(await module.services.operators.enable(currentActor(), email))),
    );

  cli
    .command(
      operator,
      'reset-2fa <email>',
      'remove the second factor (a lost phone): the operator sets up a new one at its next sign-in',
    )
    .action(
      cli.action(async ({ module }, [email]) => {
        const reset = await module.services.operators.resetSecondFactor(currentActor(), email);
        await module.webSessions.endAllOf('operator', reset.id);
        return shown(reset);
      }),
    );
}

function withLink(module: ResellerModule, link: SetPasswordLink) {
  const { settings } = module;
  const base = settings.publicUrl ?? `http://127.0.0.1:${settings.port}`;
  const mount = settings.consolePath === '/' ? '' : settings.consolePath;
  return {
    ...shown(link.operator),
    setPasswordLink: `${base}${mount}/set-password?token=${link.token}`,
    linkExpiresAt: link.expiresAt.toISOString(),
    note: settings.publicUrl
      ? 'works once, for 24 hours'
      : 'works once, for 24 hours; set PUBLIC_URL so that the link names the address people open',
  };
}

const shown = (o: Operator) => ({
  email: o.email,
  role: o.role,
  hasPassword: o.hasPassword,
  hasSecondFactor: o.hasSecondFactor,
  disabled: o.disabledAt !== null,
  createdAt: o.createdAt.toISOString(),
});
