import { changeRegistryPassword } from '../../plugins/epp/src/change-password';
import { parseOptions } from '../../plugins/epp/src/options';
import { currentActor } from '../core/audit/audit-log';
import { type CliRuntime, UsageError } from './cli-program';

/** Operator actions of the bundled EPP registrar plugin (docs/plugins.md, the `epp` section). */
export function eppCommands(cli: CliRuntime): void {
  const epp = cli.group('epp', 'operator actions of the bundled EPP registrar plugin (plugins.epp)');
  cli
    .command(
      epp,
      'change-password',
      'change the registry password once: log in with the configured password sending the new one, log out, ' +
        'and say what to configure',
    )
    .requiredOption(
      '--new-password-env <name>',
      'the environment variable holding the new password (kept off the command line and out of shell history)',
    )
    .addHelpText(
      'after',
      '\nRun it once, then put the new password in plugins.epp.password (or its passwordEnv variable) and ' +
        'restart the servers: the old password no longer logs in.',
    )
    .action(
      cli.action<{ newPasswordEnv: string }>(async ({ module, io }, _args, options) => {
        const newPassword = io.env[options.newPasswordEnv];
        if (!newPassword)
          throw new UsageError(`the environment variable ${options.newPasswordEnv} (--new-password-env) is empty`);
        const parsed = parseOptions(module.settings.plugins.epp ?? {}, io.env);
        if (!parsed.isConfigured)
          throw new Error('the epp plugin is not configured: set plugins.epp in the configuration file first');
        const changed = await changeRegistryPassword(parsed.options, newPassword);
        // Nothing of ours changes (the registry holds the password): the entry says who changed it there.
        await module.services.audit.record(currentActor(), {
          action: 'epp.password.change',
          subject: { kind: 'registrar', id: 'epp' },
        });
        return changed;
      }),
    );
}
