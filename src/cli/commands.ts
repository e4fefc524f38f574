import { version } from '../../package.json';
import { type CliIo, CliRuntime } from './cli-program';
import { creditCommands } from './credit-commands';
import { domainCommands } from './domain-commands';
import { groupCommands } from './group-commands';
import { logCommands } from './log-commands';
import { masterKeyCommands } from './master-key-commands';
import { migrateCommand } from './migrate-command';
import { operatorCommands } from './operator-commands';
import { orderCommands } from './order-commands';
import { pluginCommands } from './plugin-commands';
import { resellerCommands } from './reseller-commands';
import { syncCommands } from './sync-commands';
import { tldCommands } from './tld-commands';
import { webhookCommands } from './webhook-commands';

export type { CliIo } from './cli-program';

/**
 * Every command area, in the order `reseller-admin --help` lists them. A new command goes into
 * its area's file (or a new `<area>-commands.ts` listed here): see docs/cli.md.
 */
export const COMMAND_AREAS: ReadonlyArray<(cli: CliRuntime) => void> = [
  migrateCommand,
  groupCommands,
  tldCommands,
  resellerCommands,
  creditCommands,
  domainCommands,
  orderCommands,
  syncCommands,
  webhookCommands,
  logCommands,
  masterKeyCommands,
  operatorCommands,
  // Last: a plugin cannot take a built-in command's name.
  pluginCommands,
];

/** Runs one admin command; returns the process exit code (0 ok, 1 failed, 2 usage). */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  const cli = new CliRuntime(io, version);
  for (const addCommands of COMMAND_AREAS) addCommands(cli);
  cli.program.addHelpText(
    'after',
    '\n`reseller-admin <command> --help` shows a command, its subcommands and flags.\n' +
      'Every command prints JSON on stdout. DATABASE_URL and the other settings are read as the server reads them.\n' +
      'Only `migrate` creates or migrates the database; every other command refuses one that is missing or behind.',
  );
  return cli.run(argv);
}
