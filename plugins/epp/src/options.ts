import { readFileSync } from 'node:fs';
import { AUTH_CODE_CLASSES, type AuthCodeClass, type AuthCodePolicy, authCodeBits } from './contacts';
import { EXTENSION_URIS, PLAIN_PASSWORD_LENGTH } from './frames';

export const LOCK_STATUSES = [
  'clientTransferProhibited',
  'clientDeleteProhibited',
  'clientUpdateProhibited',
  'clientRenewProhibited',
] as const;
export type LockStatus = (typeof LOCK_STATUSES)[number];

export interface EppOptions {
  readonly host: string;
  readonly port: number;
  readonly clientId: string;
  /** 6 characters or more; over 16 only with a registry that offers loginSec (checked at its greeting). */
  readonly password: string;
  readonly cert: string;
  readonly key: string;
  readonly passphrase?: string;
  readonly ca?: string;
  readonly serverName?: string;
  readonly verifyServerCertificate: boolean;
  readonly language: string;
  readonly sessions: number;
  readonly commandTimeoutMs: number;
  readonly connectTimeoutMs: number;
  readonly keepAliveMs: number;
  readonly reconnectInitialMs: number;
  readonly reconnectMaxMs: number;
  readonly logoutTimeoutMs: number;
  readonly hostMode: 'auto' | 'objects' | 'attributes';
  readonly contactMode: 'full' | 'registrant' | 'none';
  readonly contactIdPrefix: string;
  readonly postalInfoType: 'auto' | 'int' | 'loc';
  readonly lockStatuses: readonly LockStatus[];
  readonly checkBatchSize: number;
  readonly extensions: readonly string[];
  readonly restoreReport: boolean;
  readonly maxPollMessages: number;
  /** How the plugin makes the auth info codes (EPP codes) of the contacts and domains it creates. */
  readonly authInfo: AuthCodePolicy;
}

/** Enough for registries with secure authinfo (RFC 9154: 20 to 64 characters; at least 128 bits). */
export const DEFAULT_AUTH_CODE_POLICY: AuthCodePolicy = { length: 24, characters: [...AUTH_CODE_CLASSES] };
/** What RFC 9154 asks of an auth info code's randomness. */
const MIN_AUTH_CODE_BITS = 128;

/** `{}` (the plugin installed but not set up): every call fails with a message saying so. */
export type ParsedOptions =
  | { readonly isConfigured: true; readonly options: EppOptions }
  | { readonly isConfigured: false };

type Raw = Record<string, unknown>;

/**
 * Checks the plugin's options (the `plugins.epp` section of the configuration file) and reports
 * every problem at once. PEM material may be given inline (`cert`, `key`, `ca`) or as files
 * (`certFile`, `keyFile`, `caFile`); the password inline or through an environment variable
 * (`passwordEnv`).
 */
export function parseOptions(raw: Raw, env: NodeJS.ProcessEnv = process.env): ParsedOptions {
  if (Object.keys(raw).length === 0) return { isConfigured: false };
  const problems: string[] = [];
  const str = (key: string, fallback?: string): string | undefined => {
    const v = raw[key];
    if (v === undefined || v === '') return fallback;
    if (typeof v !== 'string') {
      problems.push(`${key} must be text`);
      return fallback;
    }
    return v;
  };
  const int = (key: string, fallback: number, min: number, max: number): number => {
    const v = raw[key];
    if (v === undefined || v === '') return fallback;
    const n = typeof v === 'string' ? Number(v) : v;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      problems.push(`${key} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return n;
  };
  const bool = (key: string, fallback: boolean): boolean => {
    const v = raw[key];
    if (v === undefined || v === '') return fallback;
    if (typeof v === 'boolean') return v;
    if (v === 'true' || v === '1') return true;
    if (v === 'false' || v === '0') return false;
    problems.push(`${key} must be true or false`);
    return fallback;
  };
  const oneOf = <T extends string>(key: string, allowed: readonly T[], fallback: T): T => {
    const v = str(key);
    if (v === undefined) return fallback;
    if (!allowed.includes(v as T)) {
      problems.push(`${key} must be one of ${allowed.join(', ')}`);
      return fallback;
    }
    return v as T;
  };
  const pem = (key: string, required: boolean): string | undefined => {
    const inline = str(key);
    const file = str(`${key}File`);
    if (inline && file) problems.push(`give ${key} or ${key}File, not both`);
    if (inline) return inline;
    if (file) {
      try {
        return readFileSync(file, 'utf8');
      } catch (error) {
        problems.push(
          `${key}File ${file} cannot be read: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
        );
        return undefined;
      }
    }
    if (required)
      problems.push(`${key} (or ${key}File) is required: the registry authenticates the client by its TLS certificate`);
    return undefined;
  };

  const host = str('host');
  if (!host) problems.push('host is required');
  const clientId = str('clientId');
  if (!clientId || clientId.length < 3 || clientId.length > 16)
    problems.push('clientId is required (3 to 16 characters)');
  const passwordEnv = str('passwordEnv');
  const password = str('password') ?? (passwordEnv ? env[passwordEnv] : undefined);
  if (!password)
    problems.push(
      !passwordEnv
        ? 'password (or passwordEnv) is required'
        : // A password pasted where the variable's name goes is not repeated: only a name written as variables are.
          /^[A-Z_][A-Z0-9_]{0,63}$/.test(passwordEnv)
          ? `the environment variable ${passwordEnv} (passwordEnv) is empty`
          : 'passwordEnv names an environment variable that is empty or not set (the name is not repeated: it may be the password itself)',
    );
  else if (password.length < PLAIN_PASSWORD_LENGTH.min)
    problems.push(`password must have at least ${PLAIN_PASSWORD_LENGTH.min} characters (RFC 5730)`);
  if (raw.newPassword !== undefined)
    problems.push(
      'newPassword is not an option: change the registry password once with `reseller-admin epp change-password` ' +
        '(docs/plugins.md), then configure the new password',
    );
  const cert = pem('cert', true);
  const key = pem('key', true);
  const ca = pem('ca', false);

  const contactIdPrefix = str('contactIdPrefix', 'RS')!;
  if (!/^[A-Za-z0-9]{0,6}$/.test(contactIdPrefix)) problems.push('contactIdPrefix must be up to 6 letters or digits');
  let lockStatuses: LockStatus[] = ['clientTransferProhibited'];
  if (raw.lockStatuses !== undefined) {
    const list = Array.isArray(raw.lockStatuses)
      ? raw.lockStatuses
      : String(raw.lockStatuses)
          .split(',')
          .map((s) => s.trim());
    if (list.length === 0 || list.some((s) => !LOCK_STATUSES.includes(s as LockStatus)))
      problems.push(`lockStatuses must be a non-empty list of ${LOCK_STATUSES.join(', ')}`);
    else lockStatuses = list as LockStatus[];
  }
  let extensions: string[] = [EXTENSION_URIS.secDNS, EXTENSION_URIS.rgp];
  if (raw.extensions !== undefined) {
    const list = Array.isArray(raw.extensions)
      ? raw.extensions
      : String(raw.extensions)
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean);
    const known: Record<string, string> = { secDNS: EXTENSION_URIS.secDNS, rgp: EXTENSION_URIS.rgp };
    if (list.some((e) => typeof e !== 'string' || !known[e])) problems.push('extensions must list only secDNS and rgp');
    else extensions = list.map((e) => known[e as string]!);
  }
  let authCharacters: AuthCodeClass[] = [...DEFAULT_AUTH_CODE_POLICY.characters];
  if (raw.authInfoCharacters !== undefined) {
    const list = Array.isArray(raw.authInfoCharacters)
      ? raw.authInfoCharacters
      : String(raw.authInfoCharacters)
          .split(',')
          .map((s) => s.trim());
    if (list.length === 0 || list.some((c) => !AUTH_CODE_CLASSES.includes(c as AuthCodeClass)))
      problems.push(`authInfoCharacters must be a non-empty list of ${AUTH_CODE_CLASSES.join(', ')}`);
    else authCharacters = [...new Set(list as AuthCodeClass[])];
  }
  const authInfo: AuthCodePolicy = {
    length: int('authInfoLength', DEFAULT_AUTH_CODE_POLICY.length, 8, 64),
    characters: authCharacters,
  };
  const bits = Math.floor(authCodeBits(authInfo));
  if (bits < MIN_AUTH_CODE_BITS)
    problems.push(
      `authInfoLength and authInfoCharacters give ${bits} bits of randomness; at least ${MIN_AUTH_CODE_BITS} are needed`,
    );

  const options: EppOptions = {
    host: host ?? '',
    port: int('port', 700, 1, 65535),
    clientId: clientId ?? '',
    password: password ?? '',
    cert: cert ?? '',
    key: key ?? '',
    passphrase: str('passphrase'),
    ca,
    serverName: str('serverName'),
    verifyServerCertificate: bool('verifyServerCertificate', true),
    language: str('language', 'en')!,
    sessions: int('sessions', 2, 1, 16),
    commandTimeoutMs: int('commandTimeoutMs', 20_000, 10, 600_000),
    connectTimeoutMs: int('connectTimeoutMs', 15_000, 10, 600_000),
    // Registries drop sessions idle for as little as 120 s: <hello> comes well before that.
    keepAliveMs: int('keepAliveMs', 60_000, 10, 3_600_000),
    reconnectInitialMs: int('reconnectInitialMs', 1_000, 1, 600_000),
    reconnectMaxMs: int('reconnectMaxMs', 60_000, 1, 3_600_000),
    logoutTimeoutMs: int('logoutTimeoutMs', 5_000, 10, 60_000),
    hostMode: oneOf('hostMode', ['auto', 'objects', 'attributes'] as const, 'auto'),
    contactMode: oneOf('contactMode', ['full', 'registrant', 'none'] as const, 'full'),
    contactIdPrefix,
    postalInfoType: oneOf('postalInfoType', ['auto', 'int', 'loc'] as const, 'auto'),
    lockStatuses,
    checkBatchSize: int('checkBatchSize', 5, 1, 100),
    extensions,
    restoreReport: bool('restoreReport', false),
    maxPollMessages: int('maxPollMessages', 25, 0, 1000),
    authInfo,
  };
  const known = new Set([
    ...Object.keys(options).filter((k) => k !== 'authInfo'),
    ...['certFile', 'keyFile', 'caFile', 'passwordEnv', 'newPassword', 'authInfoLength', 'authInfoCharacters'],
  ]);
  for (const k of Object.keys(raw)) if (!known.has(k)) problems.push(`unknown option ${k}`);
  if (options.reconnectMaxMs < options.reconnectInitialMs)
    problems.push('reconnectMaxMs must not be below reconnectInitialMs');
  if (problems.length > 0) throw new Error(problems.join('; '));
  return { isConfigured: true, options };
}
