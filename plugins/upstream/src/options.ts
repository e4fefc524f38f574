import { secretOption } from 'domain-reseller';

export interface UpstreamOptions {
  /** The upstream API, with any base path, without a trailing slash. */
  readonly baseUrl: string;
  readonly email: string;
  readonly apiKey: string;
  /** Deadline of one upstream call, retries included. */
  readonly timeoutMs: number;
}

/** `{}` (installed but not set up): every call fails with a message saying so. */
export type ParsedOptions =
  | { readonly isConfigured: true; readonly options: UpstreamOptions }
  | { readonly isConfigured: false };

export const DEFAULT_TIMEOUT_MS = 30_000;

/**
 * Checks the plugin's options (the `plugins.upstream` section of the configuration file) and
 * reports every problem at once. The API key may be given inline or, better, through the
 * environment variable named by `apiKeyEnv`, so that it never sits in a configuration file.
 */
export function parseOptions(raw: Record<string, unknown>, env: NodeJS.ProcessEnv = process.env): ParsedOptions {
  if (Object.keys(raw).length === 0) return { isConfigured: false };
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

  const baseUrl = text('baseUrl');
  if (baseUrl === undefined)
    problems.push('baseUrl is required (the upstream API address, like https://api.provider.example)');
  else {
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
      problems.push('baseUrl must not carry credentials; use email and apiKey');
  }

  const email = text('email');
  if (email === undefined) problems.push('email is required (our reseller account at the upstream)');
  else if (!/^[^\s@]+@[^\s@]+$/.test(email)) problems.push('email must be an email address');

  const apiKey = secretOption(raw, 'apiKey', env, 'UPSTREAM_API_KEY');
  if (apiKey.problem !== undefined) problems.push(apiKey.problem);

  let timeoutMs = DEFAULT_TIMEOUT_MS;
  const rawTimeout = raw.timeoutMs;
  if (rawTimeout !== undefined && rawTimeout !== '') {
    const n = typeof rawTimeout === 'string' ? Number(rawTimeout) : rawTimeout;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < 100 || n > 600_000)
      problems.push('timeoutMs must be a whole number of milliseconds from 100 to 600000');
    else timeoutMs = n;
  }

  if (problems.length > 0) throw new Error(problems.join('; '));
  return {
    isConfigured: true,
    options: { baseUrl: baseUrl!.replace(/\/+$/, ''), email: email!, apiKey: apiKey.value!, timeoutMs },
  };
}
