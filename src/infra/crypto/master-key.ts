import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
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

/** Reads the key file, or creates one with a fresh random key (mode 0600) when it does not exist yet. */
export function loadOrCreateMasterKeyFile(file: string): { key: Buffer; created: boolean } {
  if (existsSync(file)) return { key: decodeMasterKey(readFileSync(file, 'utf8'), file), created: false };
  if (!existsSync(path.dirname(file))) {
    mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    chmodSync(path.dirname(file), 0o700);
  }
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
