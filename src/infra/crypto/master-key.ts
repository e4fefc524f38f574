import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';

/** Accepts 32 bytes as base64 (44 characters) or hex (64 characters). */
export function decodeMasterKey(text: string, where: string): Buffer {
  const value = text.trim();
  const key = /^[0-9a-f]{64}$/i.test(value) ? Buffer.from(value, 'hex') : Buffer.from(value, 'base64');
  if (key.length !== 32)
    throw new Error(`${where}: the master key must be 32 bytes, as 64 hex or 44 base64 characters`);
  return key;
}

/**
 * Reads the key file, or creates one with a fresh random key (mode 0600) when it does not exist
 * yet. Its folder must exist (beside the embedded default database, opening it made the folder).
 */
export function loadOrCreateMasterKeyFile(file: string): { key: Buffer; created: boolean } {
  if (existsSync(file)) return { key: decodeMasterKey(readFileSync(file, 'utf8'), file), created: false };
  const folder = path.dirname(file);
  if (!existsSync(folder))
    throw new Error(
      `the folder ${folder} of the master key file ${file} does not exist: create it (mkdir -p ${folder}, ` +
        'mode 0700) or correct MASTER_KEY_FILE',
    );
  const key = randomBytes(32);
  // 'wx' fails if another process created it first; then read theirs.
  try {
    writeFileSync(file, `${key.toString('base64')}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST')
      return { key: decodeMasterKey(readFileSync(file, 'utf8'), file), created: false };
    throw error;
  }
  return { key, created: true };
}

/**
 * When the master key may be created: `create-if-empty` (the server, an embedding host and
 * `migrate`: only for a database that holds no sealed API key yet), `existing-only` (every other
 * CLI command: never writes a key file), `replace-lost` (`reseller-admin master-key replace-lost`:
 * the stored keys cannot be opened any more and every reseller gets a new one).
 */
export type MasterKeyPolicy = 'create-if-empty' | 'existing-only' | 'replace-lost';

export interface MasterKeySources {
  readonly masterKey?: string;
  readonly masterKeyFile?: string;
  /** The embedded SQLite file, whose `master.key` lies beside it by default. */
  readonly sqliteFile?: string;
}

export interface ResolvedMasterKey {
  readonly key: Buffer;
  /** Where it came from, as an operator names it (MASTER_KEY, or the file). */
  readonly source: string;
  /** The file it lives in, when it is one. */
  readonly file: string | undefined;
  readonly created: boolean;
}

const REPLACE_LOST = '`reseller-admin master-key replace-lost --confirm`';

/**
 * The master key that seals API keys: MASTER_KEY, else MASTER_KEY_FILE, else (embedded SQLite
 * only) `master.key` beside the database file. A key is never created for a database that
 * already holds sealed API keys (they could not be opened under it), and a configured key that
 * does not open them is refused, so that nothing is ever sealed under the wrong one.
 * `aSealedKey` answers one stored sealed key, or undefined when there is none.
 */
export async function resolveMasterKey(
  sources: MasterKeySources,
  policy: MasterKeyPolicy,
  aSealedKey: () => Promise<string | undefined>,
  opens: (key: Buffer, sealed: string) => boolean,
): Promise<ResolvedMasterKey> {
  const resolved = await findOrCreate(sources, policy, aSealedKey);
  const sealed = await aSealedKey();
  const opensStored = sealed === undefined || opens(resolved.key, sealed);
  if (policy === 'replace-lost') {
    if (sealed !== undefined && opensStored)
      throw new Error(
        `the master key (${resolved.source}) opens the stored API keys: nothing is lost, and nothing was changed ` +
          '(`reseller-admin reseller rotate-key <email>` issues one reseller a new API key)',
      );
  } else if (!opensStored) {
    throw new Error(
      `the master key (${resolved.source}) differs from the one that sealed the stored API keys: ` +
        'set MASTER_KEY or MASTER_KEY_FILE to the key this database was created with (nothing was changed). ' +
        `If that key is lost for good, ${REPLACE_LOST} issues every reseller a new API key under this one`,
    );
  }
  return resolved;
}

/** The file the master key is read from (and created in): MASTER_KEY_FILE, else `master.key` beside an embedded SQLite file. */
export function masterKeyFileOf(sources: MasterKeySources): string | undefined {
  if (sources.masterKey) return undefined;
  const sqlite = sources.sqliteFile;
  return (
    sources.masterKeyFile ??
    (sqlite && sqlite !== ':memory:' ? path.join(path.dirname(sqlite), 'master.key') : undefined)
  );
}

async function findOrCreate(
  sources: MasterKeySources,
  policy: MasterKeyPolicy,
  aSealedKey: () => Promise<string | undefined>,
): Promise<ResolvedMasterKey> {
  if (sources.masterKey)
    return {
      key: decodeMasterKey(sources.masterKey, 'MASTER_KEY'),
      source: 'MASTER_KEY',
      file: undefined,
      created: false,
    };
  const file = masterKeyFileOf(sources);
  if (!file) {
    if (sources.sqliteFile === ':memory:')
      return { key: randomBytes(32), source: 'a key of this process', file, created: true };
    throw new Error('MASTER_KEY or MASTER_KEY_FILE must be set when the database is not an embedded SQLite file');
  }
  const where = sources.masterKeyFile ? `MASTER_KEY_FILE ${file}` : file;
  if (existsSync(file))
    return { key: decodeMasterKey(readFileSync(file, 'utf8'), file), source: where, file, created: false };
  if (policy !== 'replace-lost' && (await aSealedKey()) !== undefined)
    throw new Error(
      `there is no master key at ${where}, but the database holds API keys sealed under one. ` +
        'A new key would not open them, so none was created. Restore it (the master.key kept with the database, ' +
        `or set MASTER_KEY or MASTER_KEY_FILE to it); if it is lost for good, ${REPLACE_LOST} creates a new key ` +
        'and issues every reseller a new API key (each must then be given theirs)',
    );
  if (policy === 'existing-only')
    throw new Error(
      `there is no master key at ${where}, and this command does not create one: set MASTER_KEY or ` +
        'MASTER_KEY_FILE to the key the server uses, or run `reseller-admin migrate`, which creates one for an empty database',
    );
  const { key, created } = loadOrCreateMasterKeyFile(file);
  return { key, source: where, file, created };
}
