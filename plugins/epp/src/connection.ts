import tls from 'node:tls';
import { encodeFrame, FrameReader } from './framing';
import { EppProtocolError, parseServerFrame, type Greeting, type ParsedFrame } from './responses';

export interface TlsSettings {
  readonly host: string;
  readonly port: number;
  /** PEM client certificate and key (RFC 5734 section 9: the client authenticates with a certificate). */
  readonly cert: string | Buffer;
  readonly key: string | Buffer;
  readonly passphrase?: string;
  /** PEM CA bundle the server certificate is checked against; Node's built-in roots when absent. */
  readonly ca?: string | Buffer;
  /** The name checked against the server certificate; defaults to `host`. */
  readonly serverName?: string;
  /** Checking the server certificate is on unless explicitly turned off (for a registry's test bed only). */
  readonly verifyServerCertificate: boolean;
  readonly connectTimeoutMs: number;
  readonly maxFrameBytes?: number;
}

/**
 * A connection failure. `requestSent` says whether the frame may have reached the server, which
 * decides whether a command that changes something can be retried: only when it surely did not.
 */
export class EppConnectionError extends Error {
  constructor(
    message: string,
    readonly requestSent: boolean,
    options?: ErrorOptions,
  ) {
    super(message, options);
    this.name = 'EppConnectionError';
  }
}

/** The command did not get an answer before its deadline or the caller's signal. */
export class EppTimeoutError extends Error {
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'EppTimeoutError';
  }
}

interface Pending {
  resolve(frame: ParsedFrame): void;
  reject(error: Error): void;
  sent: boolean;
}

/** One TLS connection to an EPP server: the greeting, then strictly one command at a time. */
export class EppConnection {
  private pending: Pending | undefined;
  private closedError: Error | undefined;
  private readonly closeListeners: Array<(error: Error) => void> = [];

  private constructor(
    private readonly socket: tls.TLSSocket,
    maxFrameBytes: number | undefined,
  ) {
    const reader = new FrameReader(maxFrameBytes);
    socket.on('data', (chunk: Buffer) => {
      let frames: string[];
      try {
        frames = reader.push(chunk);
      } catch (error) {
        this.destroy(new EppProtocolError((error as Error).message));
        return;
      }
      for (const xml of frames) this.receive(xml);
    });
    socket.on('error', (error) =>
      this.closed(new EppConnectionError(`connection error: ${error.message}`, true, { cause: error })),
    );
    socket.on('close', () => this.closed(new EppConnectionError('the server closed the connection', true)));
  }

  /** Connects, checks the certificates, and waits for the server's greeting. */
  static open(settings: TlsSettings, signal: AbortSignal): Promise<{ connection: EppConnection; greeting: Greeting }> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(new EppTimeoutError('gave up before connecting', { cause: signal.reason }));
      let connection: EppConnection | undefined;
      const socket = tls.connect({
        host: settings.host,
        port: settings.port,
        servername: settings.serverName ?? (isIpAddress(settings.host) ? undefined : settings.host),
        cert: settings.cert,
        key: settings.key,
        passphrase: settings.passphrase,
        ca: settings.ca,
        rejectUnauthorized: settings.verifyServerCertificate,
        minVersion: 'TLSv1.2',
      });
      const fail = (error: Error) => {
        cleanup();
        socket.destroy();
        reject(error);
      };
      const timer = setTimeout(
        () =>
          fail(
            new EppTimeoutError(
              `no greeting from ${settings.host}:${settings.port} within ${settings.connectTimeoutMs} ms`,
            ),
          ),
        settings.connectTimeoutMs,
      );
      const onAbort = () => fail(new EppTimeoutError('gave up while connecting', { cause: signal.reason }));
      const onEarlyError = (error: Error) =>
        fail(
          new EppConnectionError(`cannot connect to ${settings.host}:${settings.port}: ${error.message}`, false, {
            cause: error,
          }),
        );
      const onEarlyClose = () =>
        fail(
          new EppConnectionError(`${settings.host}:${settings.port} closed the connection before its greeting`, false),
        );
      const cleanup = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', onAbort);
        socket.off('error', onEarlyError);
        socket.off('close', onEarlyClose);
      };
      signal.addEventListener('abort', onAbort, { once: true });
      socket.once('error', onEarlyError);
      socket.once('close', onEarlyClose);
      socket.once('secureConnect', () => {
        connection = new EppConnection(socket, settings.maxFrameBytes);
        connection.pending = {
          sent: false,
          resolve: (frame) => {
            cleanup();
            if (frame.kind !== 'greeting')
              return fail(new EppProtocolError('the server did not start with a greeting'));
            resolve({ connection: connection!, greeting: frame.greeting });
          },
          reject: (error) => fail(error),
        };
      });
    });
  }

  get isOpen(): boolean {
    return this.closedError === undefined;
  }

  /** Sends one frame and waits for the next frame from the server. */
  request(xml: string, signal: AbortSignal): Promise<ParsedFrame> {
    if (this.closedError) return Promise.reject(new EppConnectionError(this.closedError.message, false));
    if (this.pending) return Promise.reject(new Error('EPP connection is busy: one command at a time'));
    if (signal.aborted)
      return Promise.reject(new EppTimeoutError('no time left to send the command', { cause: signal.reason }));
    return new Promise<ParsedFrame>((resolve, reject) => {
      const onAbort = () => {
        // A late answer would be read as the next command's: the connection cannot be used again.
        const sent = this.pending?.sent ?? true;
        this.pending = undefined;
        this.destroy(new EppConnectionError('abandoned after a command deadline', sent));
        reject(
          new EppTimeoutError(
            sent ? 'no answer before the deadline' : 'the command could not be sent before the deadline',
            { cause: signal.reason },
          ),
        );
      };
      signal.addEventListener('abort', onAbort, { once: true });
      const done = () => signal.removeEventListener('abort', onAbort);
      const pending: Pending = {
        sent: false,
        resolve: (frame) => {
          done();
          resolve(frame);
        },
        reject: (error) => {
          done();
          reject(
            error instanceof EppConnectionError
              ? new EppConnectionError(error.message, pending.sent, { cause: error.cause })
              : error,
          );
        },
      };
      this.pending = pending;
      // Counted as sent once handed to the socket: from then on the server may have acted on it.
      pending.sent = true;
      this.socket.write(encodeFrame(xml));
    });
  }

  onClose(listener: (error: Error) => void): void {
    if (this.closedError) listener(this.closedError);
    else this.closeListeners.push(listener);
  }

  /** Ends the connection politely (after a logout). */
  end(): void {
    this.socket.end();
    this.closed(new EppConnectionError('connection ended', false));
  }

  destroy(error: Error = new EppConnectionError('connection destroyed', false)): void {
    this.socket.destroy();
    this.closed(error);
  }

  private receive(xml: string): void {
    const pending = this.pending;
    this.pending = undefined;
    let frame: ParsedFrame;
    try {
      frame = parseServerFrame(xml);
    } catch (error) {
      pending?.reject(error as Error);
      this.destroy(error as Error);
      return;
    }
    if (!pending) {
      this.destroy(new EppProtocolError('the server sent a frame nobody asked for'));
      return;
    }
    pending.resolve(frame);
  }

  private closed(error: Error): void {
    if (this.closedError) return;
    this.closedError = error;
    const pending = this.pending;
    this.pending = undefined;
    pending?.reject(error);
    for (const listener of this.closeListeners.splice(0)) listener(error);
  }
}

function isIpAddress(host: string): boolean {
  return /^[\d.]+$/.test(host) || host.includes(':');
}
