import { secretOption } from 'domain-reseller';
export interface OpenproviderOptions {
  /** The API's address without the version path, no trailing slash: https://api.openprovider.eu. */
  readonly baseUrl: string;
  readonly username: string;
  /** Never logged, never shown. */
  readonly password: string;
  /** The currency of the Openprovider account, which must be the platform's: prices in any other are not used. */
  readonly currency: string;
  /** Deadline of one HTTP request to Openprovider. */
  readonly requestTimeoutMs: number;
  /** The longest `Retry-After` of a 429 the plugin waits for before giving up on the call. */
  readonly maxRetryAfterMs: number;
  /** Names per `domains/check` request. */
  readonly checkBatchSize: number;
}

/** `{}` (installed but not set up): every call fails with a message saying so. */
export type ParsedOptions =
  | { readonly isConfigured: true; readonly options: OpenproviderOptions }
  | { readonly isConfigured: false };

export const PRODUCTION_URL = 'https://api.openprovider.eu';
export const SANDBOX_URL = 'https://api.cte.openprovider.eu';

/**
 * Checks the `plugins.openprovider` options and reports every problem at once. The password may be
 * given inline or, better, through the environment variable `passwordEnv` names, so that it never
 * sits in a configuration file. No message here ever contains the password.
 */
export function parseOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ParsedOptions {
  const given = Object.entries(raw).filter(([key, value]) => key !== 'disabledCapabilities' && value !== undefined);
  if (given.length === 0) return { isConfigured: false };
  const problems: string[] = [];
  const text = (key: string): string | undefined => {
    const value = raw[key];
    if (value === undefined || value === '') return undefined;
    if (typeof value !== 'string') {
      problems.push(`${key} must be text`);
      return undefined;
    }
    return value.trim();
  };
  const integer = (key: string, fallback: number, min: number, max: number): number => {
    const value = raw[key];
    if (value === undefined || value === '') return fallback;
    const n = typeof value === 'string' ? Number(value) : value;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max) {
      problems.push(`${key} must be a whole number from ${min} to ${max}`);
      return fallback;
    }
    return n;
  };

  const baseUrl = text('baseUrl') ?? PRODUCTION_URL;
  let url: URL | undefined;
  try {
    url = new URL(baseUrl);
  } catch {
    problems.push(`baseUrl "${baseUrl.slice(0, 100)}" is not an absolute URL`);
  }
  if (url && url.protocol !== 'https:' && url.protocol !== 'http:')
    problems.push('baseUrl must be an http or https URL');
  if (url && (url.search || url.hash)) problems.push('baseUrl must not carry a query string or fragment');
  if (url && (url.username || url.password))
    problems.push('baseUrl must not carry credentials; use username and password');
  if (url && /\/v1beta\/?$/.test(url.pathname))
    problems.push('baseUrl is the address without /v1beta (the plugin adds the version path)');

  const username = text('username');
  if (username === undefined) problems.push('username is required (your Openprovider API user)');

  const password = secretOption(raw, 'password', env, 'OPENPROVIDER_PASSWORD');
  if (password.problem !== undefined) problems.push(password.problem);

  const currency = (text('currency') ?? 'EUR').toUpperCase();
  if (!/^[A-Z]{3}$/.test(currency)) problems.push('currency must be a three-letter currency code, like EUR');

  const requestTimeoutMs = integer('requestTimeoutMs', 25_000, 100, 600_000);
  const maxRetryAfterMs = integer('maxRetryAfterMs', 10_000, 0, 600_000);
  const checkBatchSize = integer('checkBatchSize', 15, 1, 100);

  if (problems.length > 0) throw new Error(problems.join('; '));
  return {
    isConfigured: true,
    options: {
      baseUrl: baseUrl.replace(/\/+$/, ''),
      username: username!,
      password: password.value!,
      currency,
      requestTimeoutMs,
      maxRetryAfterMs,
      checkBatchSize,
    },
  };
}
