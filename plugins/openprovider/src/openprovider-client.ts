import type { PluginHost } from 'domain-reseller';
import type { OpenproviderOptions } from './options';
import { BASE_PATH, type AuthLoginResponse, type ErrorError } from './vendor/openprovider-api.generated';

/**
 * What went wrong talking to Openprovider:
 * - `vendor`: Openprovider answered with its error body (`{ code, desc }`): it has finished with the request;
 * - `rate_limited`: 429 with a `Retry-After` longer than we wait (nothing was done);
 * - `unreachable`: no answer, a cut connection, a timeout or our deadline: it may have acted;
 * - `malformed`: an answer that is not Openprovider's JSON (a proxy's page, garbage): it may have acted.
 */
export type OpenproviderErrorKind = 'vendor' | 'rate_limited' | 'unreachable' | 'malformed';

export class OpenproviderError extends Error {
  constructor(
    readonly kind: OpenproviderErrorKind,
    message: string,
    readonly status?: number,
    /** Openprovider's own error code (`code` of its error body). */
    readonly code?: number,
    /** Openprovider's text for the error (`desc`), passed on to the reseller. */
    readonly desc?: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'OpenproviderError';
  }
}

export function isOpenproviderError(error: unknown): error is OpenproviderError {
  return error instanceof OpenproviderError;
}

export interface RequestOptions {
  readonly query?: Readonly<Record<string, string | number | boolean | readonly string[] | undefined>>;
  readonly body?: object;
  readonly signal: AbortSignal;
}

/** Openprovider's answers all carry `{ code, desc, data }`; `code` 0 is success. */
interface Envelope {
  readonly code?: number;
  readonly desc?: string;
  readonly data?: unknown;
}

/** Openprovider's code for a token it does not accept (answered with HTTP 401). */
const AUTHENTICATION_FAILED = 196;

/**
 * The HTTP side of the plugin: JSON over HTTPS with a bearer token from `auth/login`, cached for
 * the process and renewed once when Openprovider answers 401; a 429's `Retry-After` is waited out
 * when it is short enough and the call's deadline allows. The password and the token never reach
 * the logs or an error message.
 */
export class OpenproviderClient {
  private token: Promise<string> | undefined;
  private tokenValue: string | undefined;

  constructor(
    private readonly options: OpenproviderOptions,
    private readonly logger: PluginHost['logger'],
    private readonly fetchImpl: typeof fetch = fetch,
  ) {}

  async request<T extends Envelope>(method: string, path: string, request: RequestOptions): Promise<T> {
    let renewed = false;
    for (let attempt = 0; ; attempt++) {
      const token = await this.currentToken(request.signal);
      try {
        return await this.send<T>(method, path, request, token);
      } catch (error) {
        if (!isOpenproviderError(error)) throw error;
        // The token expired or was revoked: log in again, once, and resend (Openprovider did nothing with a 401).
        if (error.status === 401 && !renewed) {
          renewed = true;
          this.forget(token);
          this.logger.info({ path }, 'openprovider: the token was refused; logging in again');
          continue;
        }
        if (error.kind === 'rate_limited' && attempt < 3) {
          const waitMs = (error as RateLimited).retryAfterMs;
          if (waitMs <= this.options.maxRetryAfterMs && !request.signal.aborted) {
            this.logger.warn({ path, waitMs }, 'openprovider: rate limited (429); waiting as Retry-After asks');
            await sleep(waitMs, request.signal);
            continue;
          }
        }
        throw error;
      }
    }
  }

  /** Drops the cached token if it is the one refused (another call may have renewed it already). */
  private forget(token: string): void {
    if (this.tokenValue === token) {
      this.token = undefined;
      this.tokenValue = undefined;
    }
  }

  private currentToken(signal: AbortSignal): Promise<string> {
    if (!this.token) {
      const login = this.login(signal).then((token) => {
        if (this.token === login) this.tokenValue = token;
        return token;
      });
      this.token = login;
      login.catch(() => {
        if (this.token === login) this.token = undefined;
      });
    }
    return this.token;
  }

  private async login(signal: AbortSignal): Promise<string> {
    let answer: AuthLoginResponse;
    try {
      answer = await this.send<AuthLoginResponse>(
        'POST',
        '/auth/login',
        { body: { username: this.options.username, password: this.options.password, ip: '0.0.0.0' }, signal },
        undefined,
      );
    } catch (error) {
      if (isOpenproviderError(error) && error.kind === 'vendor')
        throw new OpenproviderError(
          'vendor',
          `Openprovider refused the login of API user ${this.options.username}: ${error.desc ?? error.message} (check plugins.openprovider username and password)`,
          error.status,
          error.code,
          error.desc,
        );
      throw error;
    }
    const token = answer.data?.token;
    if (typeof token !== 'string' || token === '')
      throw new OpenproviderError('malformed', 'Openprovider answered the login without a token');
    return token;
  }

  private async send<T extends Envelope>(
    method: string,
    path: string,
    request: RequestOptions,
    token: string | undefined,
  ): Promise<T> {
    const url = new URL(`${this.options.baseUrl}${BASE_PATH}${path}`);
    for (const [key, value] of Object.entries(request.query ?? {})) {
      if (value === undefined) continue;
      if (Array.isArray(value)) for (const item of value) url.searchParams.append(key, item);
      else url.searchParams.set(key, String(value));
    }
    const signal = AbortSignal.any([request.signal, AbortSignal.timeout(this.options.requestTimeoutMs)]);
    let response: Response;
    let text: string;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers: {
          accept: 'application/json',
          ...(request.body ? { 'content-type': 'application/json' } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          'user-agent': 'domain-reseller-openprovider-plugin',
        },
        ...(request.body ? { body: JSON.stringify(request.body) } : {}),
        signal,
      });
      text = await response.text();
    } catch (error) {
      const why = request.signal.aborted
        ? 'the registrar deadline passed'
        : signal.aborted
          ? `no answer within ${this.options.requestTimeoutMs} ms`
          : (error as Error).message;
      throw new OpenproviderError('unreachable', `${method} ${path}: ${why}`, undefined, undefined, undefined, {
        cause: error,
      });
    }
    if (response.status === 429) {
      throw new RateLimited(
        `${method} ${path}: Openprovider is rate limiting us (429)`,
        retryAfterMs(response.headers.get('retry-after')),
      );
    }
    let json: Envelope | undefined;
    try {
      json = JSON.parse(text) as Envelope;
    } catch {
      json = undefined;
    }
    const isEnvelope = typeof json === 'object' && json !== null && !Array.isArray(json);
    if (response.status === 200 && isEnvelope && (json!.code === undefined || json!.code === 0)) return json as T;
    if (isEnvelope && (typeof json!.code === 'number' || typeof json!.desc === 'string')) {
      const error = json as ErrorError;
      const desc = typeof error.desc === 'string' && error.desc.trim() !== '' ? error.desc.trim() : undefined;
      throw new OpenproviderError(
        'vendor',
        `${method} ${path}: HTTP ${response.status}, Openprovider error ${error.code ?? '?'}${desc ? `: ${desc}` : ''}`,
        response.status,
        typeof error.code === 'number' ? error.code : undefined,
        desc,
      );
    }
    if (response.status === 401)
      throw new OpenproviderError(
        'vendor',
        `${method} ${path}: HTTP 401`,
        401,
        AUTHENTICATION_FAILED,
        'Authentication failed',
      );
    throw new OpenproviderError(
      'malformed',
      `${method} ${path}: HTTP ${response.status} with an answer that is not Openprovider's JSON`,
      response.status,
    );
  }
}

class RateLimited extends OpenproviderError {
  constructor(
    message: string,
    readonly retryAfterMs: number,
  ) {
    super('rate_limited', `${message}; Retry-After ${Math.ceil(retryAfterMs / 1000)} s`, 429);
  }
}

/** `Retry-After` is seconds or an HTTP date; without one, a second. */
export function retryAfterMs(header: string | null, now = Date.now()): number {
  if (header === null || header.trim() === '') return 1_000;
  const seconds = Number(header);
  if (Number.isFinite(seconds) && seconds >= 0) return Math.ceil(seconds * 1000);
  const date = Date.parse(header);
  return Number.isNaN(date) ? 1_000 : Math.max(0, date - now);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}
