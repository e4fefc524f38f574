import { EppConnection, EppConnectionError, EppTimeoutError, type TlsSettings } from './connection';
import { EXTENSION_URIS, helloFrame, loginFrame, logoutFrame, OBJECT_URIS, PLAIN_PASSWORD_LENGTH } from './frames';
import { describeResult, EppProtocolError, type EppResponse, type Greeting } from './responses';
import type { TransactionIds } from './transaction-ids';

/** Result codes after which the server's session (or the server) is not to be trusted: reconnect. */
export const TEMPORARY_FAILURE_CODES: ReadonlySet<number> = new Set([2400, 2500, 2501, 2502]);

/** The registry failed in a way that may pass (2400, 2500–2502, connection trouble); the session was dropped. */
export class EppTemporaryError extends Error {
  constructor(
    message: string,
    readonly code?: number,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EppTemporaryError';
  }
}

/** No session can be had right now (connection or login failing; backing off). */
export class EppUnavailableError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EppUnavailableError';
  }
}

/** The configuration cannot work with this registry (found at its greeting); nothing was sent. */
export class EppConfigurationError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'EppConfigurationError';
  }
}

/**
 * RFC 5730 carries 6 to 16 characters in `<pw>` and `<newPW>`; a longer password needs the
 * Login Security extension (RFC 8807), which only a registry announcing it in its greeting takes.
 * Undefined when the password can be sent; else why not.
 */
export function passwordProblem(password: string, greeting: Greeting, what: string): string | undefined {
  const { min, max } = PLAIN_PASSWORD_LENGTH;
  if (password.length < min) return `${what} has ${password.length} characters; EPP needs at least ${min}`;
  if (password.length <= max || greeting.extensionUris.includes(EXTENSION_URIS.loginSec)) return undefined;
  return (
    `${what} has ${password.length} characters; this registry takes ${min} to ${max} (RFC 5730) and its greeting ` +
    'does not offer the loginSec extension (RFC 8807) that carries longer ones'
  );
}

/** The object services to log in with: domains, and hosts and contacts when wanted and offered. */
export function loginObjects(login: LoginSettings, greeting: Greeting): string[] {
  if (!greeting.objectUris.includes(OBJECT_URIS.domain))
    throw new EppProtocolError('the server does not offer the domain object service');
  return [
    OBJECT_URIS.domain,
    ...(login.useHostObjects && greeting.objectUris.includes(OBJECT_URIS.host) ? [OBJECT_URIS.host] : []),
    ...(login.useContacts && greeting.objectUris.includes(OBJECT_URIS.contact) ? [OBJECT_URIS.contact] : []),
  ];
}

/** The extensions to log in with: those the operator allows and the server offers, plus loginSec when a password needs it. */
export function loginExtensions(
  allowed: readonly string[],
  greeting: Greeting,
  passwords: readonly (string | undefined)[],
): string[] {
  const offered = allowed.filter((uri) => greeting.extensionUris.includes(uri));
  const needsLoginSec = passwords.some((pw) => pw !== undefined && pw.length > PLAIN_PASSWORD_LENGTH.max);
  return needsLoginSec && greeting.extensionUris.includes(EXTENSION_URIS.loginSec)
    ? [...offered, EXTENSION_URIS.loginSec]
    : offered;
}

export interface LoginSettings {
  readonly clientId: string;
  readonly password: string;
  readonly language: string;
  /** Whether to log in with the host and contact object services when the server offers them. */
  readonly useHostObjects: boolean;
  readonly useContacts: boolean;
  /** Extension URIs the operator allows; the ones the server also offers are used. */
  readonly extensions: readonly string[];
}

export interface PoolSettings {
  readonly tls: TlsSettings;
  readonly login: LoginSettings;
  readonly maxSessions: number;
  readonly commandTimeoutMs: number;
  readonly keepAliveMs: number;
  readonly reconnectInitialMs: number;
  readonly reconnectMaxMs: number;
  readonly logoutTimeoutMs: number;
}

/** What the server and we agreed on at login. */
export interface NegotiatedServices {
  readonly greeting: Greeting;
  readonly objectUris: readonly string[];
  readonly extensionUris: readonly string[];
}

interface Session {
  readonly id: number;
  readonly connection: EppConnection;
  isBusy: boolean;
  keepAlive?: NodeJS.Timeout;
}

type Waiter = (retry: boolean) => void;

export interface CommandOptions {
  /** What the clTRID starts with (the call's transaction id); each attempt gets a new clTRID from it. */
  readonly reference: string;
  readonly signal: AbortSignal;
  /** A command that changes nothing (check, info, query, poll request) may be resent on a new session. */
  readonly isReadOnly: boolean;
}

export interface PoolLogger {
  error(obj: object, msg?: string): void;
  info(obj: object, msg?: string): void;
  warn(obj: object, msg?: string): void;
  debug(obj: object, msg?: string): void;
}

/**
 * A small pool of logged-in EPP sessions. Sessions open on demand up to `maxSessions`; each runs
 * one command at a time under a deadline (the command timeout or the caller's signal, whichever
 * comes first). A session that fails, times out or gets a 2400/250x answer is dropped and the next
 * command opens a new one. After a failed connect or login the pool backs off exponentially,
 * failing commands at once until the next attempt is due. Idle sessions send `<hello>` to stay
 * open; `close()` logs every session out.
 */
export class SessionPool {
  private readonly sessions: Session[] = [];
  private readonly waiters: Waiter[] = [];
  private opening = 0;
  private nextId = 1;
  private failures = 0;
  private nextAttemptAt = 0;
  private lastFailure = '';
  private isClosed = false;
  private negotiated: NegotiatedServices | undefined;
  private readonly counters = { connects: 0, connectFailures: 0, commands: 0, keepAlives: 0, dropped: 0 };

  // Real time, not the platform clock: backoff and grace periods are about the network.
  constructor(
    private readonly settings: PoolSettings,
    private readonly logger: PoolLogger,
    private readonly ids: TransactionIds,
    private readonly now: () => number = Date.now,
  ) {}

  /** Services agreed at the last login; opens a session first when none has been made. */
  async services(signal: AbortSignal): Promise<NegotiatedServices> {
    if (!this.negotiated) {
      const session = await this.acquire(signal);
      this.release(session);
    }
    return this.negotiated!;
  }

  /**
   * Sends one command, built for a clTRID never used before (a resent command gets a new one), and
   * returns the server's response; throws for faults, never for result codes 1xxx/2xxx other than 2400/250x.
   */
  async command(build: (clTRID: string) => string, options: CommandOptions): Promise<EppResponse> {
    const deadline = AbortSignal.any([options.signal, AbortSignal.timeout(this.settings.commandTimeoutMs)]);
    let clTRID = options.reference;
    for (let attempt = 1; ; attempt++) {
      const session = await this.acquire(deadline).catch((error: unknown) => {
        throw this.deadlineError(error, deadline, options.signal, clTRID);
      });
      let response: EppResponse;
      try {
        this.counters.commands++;
        clTRID = this.ids.next(options.reference);
        const frame = build(clTRID);
        const answer = await session.connection.request(frame, deadline);
        if (answer.kind !== 'response') throw new EppProtocolError('the server answered a command with a greeting');
        response = answer.response;
      } catch (error) {
        this.drop(session, error as Error);
        const mayRetry =
          error instanceof EppConnectionError &&
          (options.isReadOnly || !error.requestSent) &&
          !deadline.aborted &&
          attempt === 1;
        if (mayRetry) continue;
        if (error instanceof EppConnectionError) {
          throw new EppTemporaryError(
            `${error.message}${error.requestSent && !options.isReadOnly ? '; the command may or may not have been carried out' : ''}`,
            undefined,
            { cause: error },
          );
        }
        throw this.deadlineError(error, deadline, options.signal, clTRID);
      }
      if (TEMPORARY_FAILURE_CODES.has(response.code)) {
        this.drop(session, new Error(`result ${response.code}`));
        if (options.isReadOnly && attempt === 1 && !deadline.aborted) continue;
        throw new EppTemporaryError(`the registry failed: ${describeResult(response)}`, response.code);
      }
      this.release(session);
      this.logger.debug({ clTRID, svTRID: response.serverTransactionId, code: response.code }, 'epp command');
      return response;
    }
  }

  stats(): { sessions: number; busy: number; consecutiveFailures: number; backoffMs: number } & typeof this.counters {
    return {
      sessions: this.sessions.length,
      busy: this.sessions.filter((s) => s.isBusy).length,
      consecutiveFailures: this.failures,
      backoffMs: Math.max(0, this.nextAttemptAt - this.now()),
      ...this.counters,
    };
  }

  /** Stops taking commands, waits briefly for running ones, then logs every session out. */
  async close(): Promise<void> {
    if (this.isClosed) return;
    this.isClosed = true;
    for (const waiter of this.waiters.splice(0)) waiter(false);
    const graceUntil = this.now() + this.settings.logoutTimeoutMs;
    while (this.sessions.some((s) => s.isBusy) && this.now() < graceUntil) await new Promise((r) => setTimeout(r, 20));
    await Promise.allSettled(
      this.sessions.splice(0).map(async (session) => {
        clearTimeout(session.keepAlive);
        if (session.isBusy || !session.connection.isOpen) {
          session.connection.destroy();
          return;
        }
        try {
          await session.connection.request(
            logoutFrame(this.ids.next('epp-logout')),
            AbortSignal.timeout(this.settings.logoutTimeoutMs),
          );
        } catch {
          // Logging out is a courtesy; the connection goes either way.
        }
        session.connection.end();
      }),
    );
  }

  private deadlineError(error: unknown, deadline: AbortSignal, callerSignal: AbortSignal, clTRID: string): Error {
    if (error instanceof EppTimeoutError || (deadline.aborted && !(error instanceof EppUnavailableError))) {
      const byCaller = callerSignal.aborted;
      return new EppTimeoutError(
        byCaller
          ? `the registrar call was cut off before the registry answered (clTRID ${clTRID})`
          : `the registry did not answer within ${this.settings.commandTimeoutMs} ms (clTRID ${clTRID})`,
        { cause: error },
      );
    }
    return error as Error;
  }

  private async acquire(signal: AbortSignal): Promise<Session> {
    for (;;) {
      if (this.isClosed) throw new EppUnavailableError('the EPP plugin is shut down');
      if (signal.aborted)
        throw new EppTimeoutError('no session became free before the deadline', { cause: signal.reason });
      const idle = this.sessions.find((s) => !s.isBusy && s.connection.isOpen);
      if (idle) {
        idle.isBusy = true;
        clearTimeout(idle.keepAlive);
        return idle;
      }
      if (this.sessions.length + this.opening < this.settings.maxSessions) {
        this.opening++;
        try {
          const session = await this.open(signal);
          session.isBusy = true;
          this.sessions.push(session);
          return session;
        } finally {
          this.opening--;
        }
      }
      const retry = await new Promise<boolean>((resolve, reject) => {
        const onAbort = () => {
          const i = this.waiters.indexOf(waiter);
          if (i >= 0) this.waiters.splice(i, 1);
          reject(new EppTimeoutError('no session became free before the deadline', { cause: signal.reason }));
        };
        const waiter: Waiter = (again) => {
          signal.removeEventListener('abort', onAbort);
          resolve(again);
        };
        signal.addEventListener('abort', onAbort, { once: true });
        this.waiters.push(waiter);
      });
      if (!retry) throw new EppUnavailableError('the EPP plugin is shut down');
    }
  }

  private async open(signal: AbortSignal): Promise<Session> {
    const wait = this.nextAttemptAt - this.now();
    if (wait > 0) {
      throw new EppUnavailableError(
        `the registry is unreachable (${this.lastFailure}); next connection attempt in ${Math.ceil(wait)} ms`,
      );
    }
    const { tls, login } = this.settings;
    let connection: EppConnection | undefined;
    try {
      this.counters.connects++;
      const opened = await EppConnection.open(tls, signal);
      connection = opened.connection;
      const { greeting } = opened;
      const objectUris = loginObjects(login, greeting);
      const problem = passwordProblem(
        login.password,
        greeting,
        'the configured password (plugins.epp.password or passwordEnv)',
      );
      if (problem) {
        const { min, max } = PLAIN_PASSWORD_LENGTH;
        throw new EppConfigurationError(`${problem}: configure a password of ${min} to ${max} characters`);
      }
      const extensionUris = loginExtensions(login.extensions, greeting, [login.password]);
      const frame = loginFrame(
        { clientId: login.clientId, password: login.password, language: login.language, objectUris, extensionUris },
        this.ids.next('epp-login'),
      );
      const answer = await connection.request(
        frame,
        AbortSignal.any([signal, AbortSignal.timeout(tls.connectTimeoutMs)]),
      );
      if (answer.kind !== 'response') throw new EppProtocolError('the server answered the login with a greeting');
      if (answer.response.code !== 1000)
        throw new EppUnavailableError(`login refused: ${describeResult(answer.response)}`);
      this.negotiated = { greeting, objectUris, extensionUris };
      this.failures = 0;
      this.nextAttemptAt = 0;
      const session: Session = { id: this.nextId++, connection, isBusy: false };
      connection.onClose(() => this.forget(session));
      this.logger.info(
        { session: session.id, server: greeting.serverId, objects: objectUris, extensions: extensionUris },
        'epp session logged in',
      );
      return session;
    } catch (error) {
      connection?.destroy();
      this.counters.connectFailures++;
      this.failures++;
      const backoff = Math.min(
        this.settings.reconnectMaxMs,
        this.settings.reconnectInitialMs * 2 ** (this.failures - 1),
      );
      this.nextAttemptAt = this.now() + backoff;
      this.lastFailure = (error as Error).message;
      this.logger.warn({ err: this.lastFailure, failures: this.failures, backoffMs: backoff }, 'epp connection failed');
      if (error instanceof EppTimeoutError) throw error;
      if (error instanceof EppConfigurationError) {
        // Not the network: only the operator can fix it, so it is logged as an error.
        this.logger.error({ err: error.message }, 'epp plugin configuration does not fit the registry');
        throw new EppUnavailableError(`the EPP plugin's configuration does not fit the registry: ${error.message}`, {
          cause: error,
        });
      }
      throw new EppUnavailableError(`cannot open an EPP session: ${this.lastFailure}`, { cause: error });
    }
  }

  private release(session: Session): void {
    session.isBusy = false;
    if (this.isClosed) return;
    const waiter = this.waiters.shift();
    if (waiter) {
      waiter(true);
      return;
    }
    this.scheduleKeepAlive(session);
  }

  private scheduleKeepAlive(session: Session): void {
    clearTimeout(session.keepAlive);
    session.keepAlive = setTimeout(() => void this.sendHello(session), this.settings.keepAliveMs);
    session.keepAlive.unref();
  }

  private async sendHello(session: Session): Promise<void> {
    if (session.isBusy || this.isClosed || !this.sessions.includes(session)) return;
    session.isBusy = true;
    try {
      this.counters.keepAlives++;
      const answer = await session.connection.request(
        helloFrame(),
        AbortSignal.timeout(this.settings.commandTimeoutMs),
      );
      if (answer.kind !== 'greeting') throw new EppProtocolError('the server did not answer <hello> with a greeting');
      this.release(session);
    } catch (error) {
      this.drop(session, error as Error);
    }
  }

  private drop(session: Session, reason: Error): void {
    this.counters.dropped++;
    this.logger.warn({ session: session.id, err: reason.message }, 'epp session dropped');
    session.connection.destroy();
    this.forget(session);
  }

  private forget(session: Session): void {
    clearTimeout(session.keepAlive);
    const i = this.sessions.indexOf(session);
    if (i < 0) return;
    this.sessions.splice(i, 1);
    // Someone waiting for a free session may now open a new one instead.
    this.waiters.shift()?.(true);
  }
}
