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
 * of a built-in command. Every run the plugin is given is audited: what was asked, then its outcome
 * (done, refused as a usage error, or failed).
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
  const action = command.auditAction ?? `${pluginId}.${command.name}`;
  const subject = { kind: 'registrar', id: pluginId };
  leaf.action(
    cli.action<Record<string, string | undefined>>(async ({ module, io }, _args, flags) => {
      const audit = (suffix: string, after?: unknown) =>
        module.services.audit.record(currentActor(), { action: `${action}${suffix}`, subject, after });
      // What the plugin acts on is outside our database (a registry): no transaction holds the change
      // and its entry together, so the request is on record before the plugin acts (a run cut off
      // midway leaves it), and the outcome after, whichever it is.
      await audit('.requested', { flags: { ...flags } });
      let result: unknown;
      try {
        result = await command.run({ rawOptions: module.settings.plugins[pluginId] ?? {}, flags, env: io.env });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        const refused = isPluginUsageError(error);
        // The plugin's own error is what the operator must see, even when its entry cannot be written.
        await audit(refused ? '.refused' : '.failed', { reason }).catch(() => undefined);
        if (refused) throw new UsageError(reason);
        throw error;
      }
      await audit('');
      return result;
    }),
  );
}
