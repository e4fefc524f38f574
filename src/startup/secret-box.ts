import type { Knex } from 'knex';
import type { Settings } from '../config/settings';
import type { Logger } from '../core/common/logger';
import { AesSecretBox } from '../infra/crypto/aes-secret-box';
import { type MasterKeyPolicy, resolveMasterKey } from '../infra/crypto/master-key';
import type { OpenedDatabase } from './database';

/**
 * The box that seals API keys, under the master key (docs/operations.md): the configured key, or
 * one created beside an embedded database that holds no sealed key yet; a key that does not open
 * the stored keys is refused.
 */
export async function openSecretBox(
  settings: Settings,
  { knex, target }: OpenedDatabase,
  policy: MasterKeyPolicy,
  logger: Logger,
): Promise<AesSecretBox> {
  const masterKey = await resolveMasterKey(
    {
      masterKey: settings.masterKey,
      masterKeyFile: settings.masterKeyFile,
      sqliteFile: target?.kind === 'sqlite' ? target.location : undefined,
    },
    policy,
    () => aSealedApiKey(knex),
    (key, sealed) => opensWith(key, sealed),
  );
  if (masterKey.created && masterKey.file)
    logger.warn(
      { file: masterKey.file },
      'created a new master key; back it up with the database: without it the stored API keys cannot be used',
    );
  return new AesSecretBox(masterKey.key);
}

/** One reseller's sealed API key, or undefined on a database that holds none (or has no schema yet). */
async function aSealedApiKey(knex: Knex): Promise<string | undefined> {
  if (!(await knex.schema.hasTable('resellers'))) return undefined;
  const row = await knex('resellers').first('sealed_api_key');
  return row?.sealed_api_key;
}

function opensWith(key: Buffer, sealed: string): boolean {
  try {
    new AesSecretBox(key).open(sealed);
    return true;
  } catch {
    return false;
  }
}
