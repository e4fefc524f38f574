import { type PluginCommand, pluginUsageError } from 'domain-reseller';
import { changeRegistryPassword } from './change-password';
import { parseOptions } from './options';

/** `reseller-admin epp change-password`: the registry password changed once, by the operator. */
export const changePasswordCommand: PluginCommand = {
  name: 'change-password',
  description:
    'change the registry password once: log in with the configured password sending the new one, log out, ' +
    'and say what to configure',
  flags: [
    {
      name: 'new-password-env',
      value: 'name',
      description:
        'the environment variable holding the new password (kept off the command line and out of shell history)',
      isRequired: true,
    },
  ],
  help:
    'Run it once, then put the new password in plugins.epp.password (or its passwordEnv variable) and ' +
    'restart the servers: the old password no longer logs in.',
  // Nothing of the platform's changes (the registry holds the password): the entry says who changed it there.
  auditAction: 'epp.password.change',
  async run({ rawOptions, flags, env }) {
    const variable = flags.newPasswordEnv ?? '';
    const newPassword = env[variable];
    if (!newPassword) throw pluginUsageError(`the environment variable ${variable} (--new-password-env) is empty`);
    const parsed = parseOptions(rawOptions, env);
    if (!parsed.isConfigured)
      throw new Error('the epp plugin is not configured: set plugins.epp in the configuration file first');
    return changeRegistryPassword(parsed.options, newPassword);
  },
};
