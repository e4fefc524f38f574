import type { CliRuntime } from './cli-program';

export function migrateCommand(cli: CliRuntime): void {
  cli
    .command(
      cli.program,
      'migrate',
      'create the database if needed and bring its schema up to date (safe beside running servers)',
    )
    .action(cli.migratingAction(async ({ module }) => ({ applied: await module.migrate() })));
}
