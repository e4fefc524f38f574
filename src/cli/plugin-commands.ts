import { loadSettings } from '../config/settings';
import { currentActor } from '../core/audit/audit-log';
import { isPluginUsageError, type PluginCommand } from '../core/registrar/plugin';
import { pluginDefinitions } from '../infra/plugins/plugin-loader';
import { pluginDirectories } from '../startup/plugins';
import { type CliRuntime, UsageError } from './cli-program';

/**
 * The operator commands registrar plugins contribute (`commands` of their definition;
 * docs/plugins.md#operator-commands), each under `reseller-admin <plugin id>`, read from the
 * plugin folders the module would load before anything is opened. A plugin cannot take the name
 * of a built-in command. A run that succeeds is audited like any other command.
 */
export function pluginCommands(cli: CliRuntime): void {
  let dirs: string[];
  try {
    dirs = pluginDirectories(loadSettings(cli.io.env).pluginsDir);
  } catch {
    // Bad settings: the command that runs reports them.
    return;
  }
  let definitions: ReturnType<typeof pluginDefinitions>;
  try {
    definitions = pluginDefinitions(dirs);
  } catch {
    // A PLUGINS_DIR that does not exist: opening the module reports it.
    return;
  }
  const taken = new Set(cli.program.commands.map((c) => c.name()));
  for (const { id, definition } of definitions) {
    if (!definition.commands?.length || taken.has(id)) continue;
    const group = cli.group(id, `operator commands of the ${id} registrar plugin (plugins.${id})`);
    for (const command of definition.commands) addCommand(cli, group, id, command);
  }
}

function addCommand(cli: CliRuntime, group: ReturnType<CliRuntime['group']>, pluginId: string, command: PluginCommand) {
  const leaf = cli.command(group, command.name, command.description);
  for (const flag of command.flags ?? []) {
    const spec = `--${flag.name} <${flag.value}>`;
    if (flag.isRequired) leaf.requiredOption(spec, flag.description);
    else leaf.option(spec, flag.description);
  }
  if (command.help) leaf.addHelpText('after', `\n${command.help}`);
  leaf.action(
    cli.action<Record<string, string | undefined>>(async ({ module, io }, _args, flags) => {
      let result: unknown;
      try {
        result = await command.run({ rawOptions: module.settings.plugins[pluginId] ?? {}, flags, env: io.env });
      } catch (error) {
        if (isPluginUsageError(error)) throw new UsageError(error.message);
        throw error;
      }
      await module.services.audit.record(currentActor(), {
        action: command.auditAction ?? `${pluginId}.${command.name}`,
        subject: { kind: 'registrar', id: pluginId },
      });
      return result;
    }),
  );
}
