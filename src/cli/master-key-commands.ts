import { parseDatabaseUrl } from '../infra/db/connect';
import { masterKeyFileOf } from '../infra/crypto/master-key';
import type { CliRuntime } from './cli-program';

export function masterKeyCommands(cli: CliRuntime): void {
  const masterKey = cli.group('master-key', 'the master key that seals the resellers’ API keys');

  cli
    .command(
      masterKey,
      'replace-lost',
      'when the master key is lost for good: create a new one (or use MASTER_KEY) and issue every reseller a new API key, printed once',
    )
    .requiredOption('--confirm', 'every reseller’s API key changes: each must be given the new one')
    .action(
      cli.lostMasterKeyAction(async ({ module }) => {
        const target = parseDatabaseUrl(module.settings.databaseUrl);
        const keyFile = masterKeyFileOf({
          masterKey: module.settings.masterKey,
          masterKeyFile: module.settings.masterKeyFile,
          sqliteFile: target.kind === 'sqlite' ? target.location : undefined,
        });
        return { keyFile: keyFile ?? 'MASTER_KEY', resellers: await module.services.resellers.reissueAllKeys() };
      }),
    );
}
