import type { Clock } from '../common/clock';
import type { Logger } from '../common/logger';
import { isSecretField, mayNameSecretField } from '../common/secret-fields';

/** One API call a reseller made. Never the token, an API key, a password or an EPP code. */
export interface ApiLogEntry {
  readonly resellerId: string;
  /** When the call was answered. */
  readonly at: Date;
  readonly method: string;
  /** The route template, like `/domains/:domain/lock`. */
  readonly route: string;
  /** The domain the call was about (ASCII), when it named one. */
  readonly domain: string | null;
  readonly status: number;
  readonly durationMs: number;
  /** The error message the reseller was given, when the call failed. */
  readonly error: string | null;
  readonly requestId: string;
  readonly clientIp: string | null;
  /** The request's parameters (query and body) as JSON, secrets redacted, at most BODY_CAP characters. */
  readonly requestBody?: string | null;
  /** The reply's body, secrets redacted, at most BODY_CAP characters. */
  readonly replyBody?: string | null;
}

/**
 * A call as the request path hands it over: the entry, and the request's parameters and reply as
 * they were. Redacting, serialising and capping them waits for the buffer's write, off the request
 * path (docs/adr/0006: a request costs one array push).
 */
export interface RecordedApiCall extends ApiLogEntry {
  readonly requestParams?: Readonly<Record<string, unknown>>;
  readonly replyText?: string;
}

/** The most characters of a request's parameters, and of a reply, that the log keeps. */
export const BODY_CAP = 4096;
export const REDACTED = '[redacted]';

// Fields whose values are never stored: the one rule of src/core/common/secret-fields.ts (docs/api.md#api-log).

function redact(value: unknown, depth = 0): unknown {
  if (depth > 8 || value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = isSecretField(k) ? REDACTED : redact(v, depth + 1);
  return out;
}

function capped(text: string): string {
  return text.length <= BODY_CAP
    ? text
    : `${text.slice(0, BODY_CAP)}… [${text.length - BODY_CAP} more characters not kept]`;
}

/** The request's parameters as stored: JSON with every secret field redacted, capped. */
export function storedRequestBody(params: Readonly<Record<string, unknown>> | undefined): string | null {
  if (!params || Object.keys(params).length === 0) return null;
  return capped(JSON.stringify(redact(params)));
}

/** The reply as stored: a JSON reply naming a secret field has it redacted; capped. */
export function storedReplyBody(text: string | undefined): string | null {
  if (text === undefined || text === '') return null;
  // A reply that names no secret field is stored as it is, not parsed.
  if (!mayNameSecretField(text)) return capped(text);
  try {
    return capped(JSON.stringify(redact(JSON.parse(text))));
  } catch {
    // Not JSON and possibly holding a secret: kept out rather than guessed at.
    return REDACTED;
  }
}

/** What the buffer writes for a recorded call: the entry with its bodies redacted and capped. */
export function storedEntry(call: RecordedApiCall): ApiLogEntry {
  return {
    resellerId: call.resellerId,
    at: call.at,
    method: call.method,
    route: call.route,
    domain: call.domain,
    status: call.status,
    durationMs: call.durationMs,
    error: call.error,
    requestId: call.requestId,
    clientIp: call.clientIp,
    requestBody: call.requestBody ?? storedRequestBody(call.requestParams),
    replyBody: call.replyBody ?? storedReplyBody(call.replyText),
  };
}

export interface ApiLogQuery {
  readonly resellerId: string;
  readonly since?: Date;
  readonly domain?: string;
  readonly limit: number;
}

export interface ApiLogRepository {
  /** Writes entries in one statement. */
  insertMany(entries: readonly ApiLogEntry[]): Promise<void>;
  /** Newest first. */
  find(query: ApiLogQuery): Promise<ApiLogEntry[]>;
  /** Deletes entries older than `before`, at most `limit` of them; answers how many went. */
  purge(before: Date, limit: number): Promise<number>;
}

export interface ApiLogDropObserver {
  apiLogDropped(count: number): void;
}

export interface BufferedApiLogOptions {
  /** How often the buffer is written. */
  readonly flushMs: number;
  /** Entries per insert statement. */
  readonly batchSize?: number;
  /** Entries kept at most while the database cannot take them; the oldest go first. */
  readonly bufferMax: number;
}

const MAX_ERROR = 500;

/** Entries per insert statement unless told otherwise (`BufferedApiLogOptions.batchSize`). */
export const API_LOG_BATCH_SIZE = 500;

/**
 * Collects API log entries in memory and writes them in batches, off the request path: a request
 * costs one array push. A full batch is written as soon as it fills, and only full batches are
 * written that way: under steady load the log is written `batchSize` rows a statement, not in
 * whatever trickle arrived while the last statement ran (bench/RESULTS.md). What is left is
 * written every `flushMs`. While the database cannot take them, entries are kept (up to
 * `bufferMax`, then the oldest are dropped and counted) and only the timer tries again, so an
 * outage loses the log, never a request. `flush` and `close` write everything.
 */
export class BufferedApiLog {
  private buffer: RecordedApiCall[] = [];
  private timer: ReturnType<typeof setInterval> | undefined;
  /** The last write queued; writes run one at a time. */
  private writing: Promise<void> | undefined;
  /** A flush queued that has not started yet. */
  private queuedFlush: Promise<void> | undefined;
  private failing = false;
  private readonly batchSize: number;

  constructor(
    private readonly repository: ApiLogRepository,
    private readonly logger: Logger,
    private readonly options: BufferedApiLogOptions,
    private readonly observer?: ApiLogDropObserver,
  ) {
    this.batchSize = Math.max(1, options.batchSize ?? API_LOG_BATCH_SIZE);
  }

  record(call: RecordedApiCall): void {
    // While the database refuses entries they pile up to bufferMax: each is then kept as stored
    // (capped bodies), never with the request's whole parameters and reply.
    const entry = this.failing ? storedEntry(call) : call;
    const error = entry.error && entry.error.length > MAX_ERROR ? entry.error.slice(0, MAX_ERROR) : entry.error;
    this.buffer.push(error === entry.error ? entry : { ...entry, error });
    if (this.buffer.length > this.options.bufferMax) {
      const dropped = this.buffer.length - this.options.bufferMax;
      this.buffer.splice(0, dropped);
      this.observer?.apiLogDropped(dropped);
    }
    // After a failed write only the timer tries again, not every request.
    if (this.buffer.length >= this.batchSize && this.timer !== undefined && !this.writing && !this.failing)
      void this.write(false);
  }

  get pending(): number {
    return this.buffer.length;
  }

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => void this.flush(), this.options.flushMs);
    this.timer.unref?.();
  }

  /**
   * Writes everything buffered now, after the write under way if any; entries recorded while it
   * runs wait for the next write, so that a busy server's flush ends. Calls made before it starts
   * share it. Never rejects.
   */
  flush(): Promise<void> {
    this.queuedFlush ??= this.write(true);
    return this.queuedFlush;
  }

  /** Stops the timer and writes what is left; what the database still refuses is lost, and said so. */
  async close(): Promise<void> {
    if (this.timer !== undefined) clearInterval(this.timer);
    this.timer = undefined;
    await this.flush();
    if (this.buffer.length > 0) {
      this.logger.error(
        { lost: this.buffer.length },
        'API log: entries the database did not take are lost as the process stops',
      );
      this.observer?.apiLogDropped(this.buffer.length);
      this.buffer = [];
    }
  }

  /** Queues a write behind the one under way: a flush (`all`), or the full batches only. */
  private write(all: boolean): Promise<void> {
    const before = this.writing;
    const write: Promise<void> = (async () => {
      await before;
      if (all) this.queuedFlush = undefined;
      await this.writeBatches(all ? this.buffer.length : 0);
    })().finally(() => {
      if (this.writing === write) this.writing = undefined;
    });
    this.writing = write;
    return write;
  }

  /** Writes the first `owed` entries, and any full batch, `batchSize` at a time. */
  private async writeBatches(owed: number): Promise<void> {
    while (this.buffer.length >= this.batchSize || (owed > 0 && this.buffer.length > 0)) {
      const batch = this.buffer.slice(0, this.batchSize);
      try {
        await this.repository.insertMany(batch.map(storedEntry));
      } catch (error) {
        if (!this.failing)
          this.logger.warn(
            { err: error, buffered: this.buffer.length },
            'API log: the database did not take the entries; kept for the next try',
          );
        this.failing = true;
        return;
      }
      // Entries were appended (and, past bufferMax, the oldest dropped) meanwhile: remove exactly the written ones.
      const written = new Set(batch);
      this.buffer = this.buffer.filter((entry) => !written.has(entry));
      owed -= batch.length;
      if (this.failing) this.logger.info({}, 'API log: writing again');
      this.failing = false;
    }
  }
}

export interface ApiLogReadOptions {
  readonly since?: Date;
  readonly domain?: string;
  readonly limit?: number;
}

/** Reading and purging the API log (`reseller-admin log`). */
export class ApiLogService {
  constructor(
    private readonly repository: ApiLogRepository,
    private readonly clock: Clock,
    private readonly retentionDays: number,
  ) {}

  find(resellerId: string, options: ApiLogReadOptions = {}): Promise<ApiLogEntry[]> {
    return this.repository.find({
      resellerId,
      since: options.since,
      domain: options.domain,
      limit: Math.min(Math.max(options.limit ?? 100, 1), 10_000),
    });
  }

  /**
   * Deletes entries older than `before` (default: the retention setting; with retention 0
   * nothing is old), in chunks so that a large purge never holds a long lock.
   */
  async purge(before?: Date): Promise<{ deleted: number; before: string | null }> {
    const cutoff =
      before ??
      (this.retentionDays > 0 ? new Date(this.clock.now().getTime() - this.retentionDays * 86_400_000) : undefined);
    if (!cutoff) return { deleted: 0, before: null };
    let deleted = 0;
    for (;;) {
      const n = await this.repository.purge(cutoff, 5_000);
      deleted += n;
      if (n < 5_000) return { deleted, before: cutoff.toISOString() };
    }
  }
}
