import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import type { Logger } from '../core/common/logger';
import { isSecretField } from '../core/common/secret-fields';
import { type LogFormat, prettySink } from './log-format';

/**
 * Never written to a log, at any depth: every secret by the one rule (src/core/common/secret-fields.ts:
 * EPP and auth codes, passwords, tokens, API keys, the master key, secrets, in any spelling), and
 * besides, by exact name (any case), personal data and what carries it: a domain's contacts and
 * their fields, and a database error's statement. Defence in depth: the code logs none of these on
 * purpose; this catches one that slips in.
 */
const PERSONAL_KEYS: ReadonlySet<string> = new Set([
  'transfertag',
  'contacts',
  'contactdetails',
  'contact',
  'registrant',
  'registrantemail',
  'registrantemailaddress',
  'email',
  'emailaddress',
  'email address',
  'phonenumber',
  'phone',
  'phone number',
  'address1',
  'address2',
  'firstname',
  'lastname',
  'fullname',
  'companyname',
  'postcode',
  'tax_id',
  // A database error carries its statement with the values written in (mysql2's `err.sql`) or beside
  // it (`bindings`): contacts, keys. The message keeps the statement with placeholders (connect.ts).
  'sql',
  'bindings',
]);

/** Keys already judged, so that a line's keys (nearly always the same few) cost one lookup each. Bounded. */
const judged = new Map<string, boolean>();
const JUDGED_MAX = 10_000;

/** Whether a key's value stays out of the process log. */
export function isLoggedOut(key: string): boolean {
  let verdict = judged.get(key);
  if (verdict === undefined) {
    verdict = isSecretField(key) || PERSONAL_KEYS.has(key.toLowerCase());
    if (judged.size >= JUDGED_MAX) judged.clear();
    judged.set(key, verdict);
  }
  return verdict;
}

export const CENSOR = '[redacted]';
const MAX_DEPTH = 6;

/**
 * Returns the log object with every secret key censored (compared case-insensitively, at any
 * depth down to 6 levels, lists and errors included), copying only what changes: a clean line,
 * nearly every line, comes back as it is, allocation-free. pino's own `redact` needs a path per
 * depth, and its wildcard paths cost microseconds a line (bench/RESULTS.md).
 */
export function redactSecrets<T>(value: T): T {
  return (value !== null && typeof value === 'object' ? redactLevel(value, 0) : value) as T;
}

/** The older name of `redactSecrets`. */
export const scrub = redactSecrets;

function redactLevel(value: object, depth: number): object {
  let copy: Record<string, unknown> | undefined;
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const field = source[key];
    let replaced = field;
    if (isLoggedOut(key)) replaced = CENSOR;
    else if (field !== null && typeof field === 'object' && depth < MAX_DEPTH) replaced = redactLevel(field, depth + 1);
    if (replaced !== field) {
      copy ??= copyOf(value);
      copy[key] = replaced;
    }
  }
  return copy ?? value;
}

/** A shallow copy that stays what it was: a list stays a list, an error keeps its class, message and stack for pino's serialiser. */
function copyOf(value: object): Record<string, unknown> {
  if (Array.isArray(value)) return [...value] as unknown as Record<string, unknown>;
  if (value instanceof Error) {
    const copy = Object.create(Object.getPrototypeOf(value)) as Record<string, unknown>;
    for (const key of ['message', 'stack', 'cause'] as const) {
      if (key in value)
        Object.defineProperty(copy, key, {
          value: (value as unknown as Record<string, unknown>)[key],
          enumerable: false,
          writable: true,
        });
    }
    return Object.assign(copy, value);
  }
  return { ...value };
}

/** The request (or background pass) a log line belongs to; every line written inside it carries these fields. */
export interface LogContext {
  readonly reqId?: string;
  readonly job?: string;
}

const context = new AsyncLocalStorage<LogContext>();

/**
 * Runs `work` (given `args`) with `bindings` added to every log line it writes, through any logger of this
 * module, until the promise it returns settles. Work left running after its context ended (a
 * detached promise) keeps the bindings; work started outside any context has none.
 */
export function runWithLogContext<T, A extends unknown[] = []>(
  bindings: LogContext,
  work: (...args: A) => Promise<T>,
  ...args: A
): Promise<T> {
  try {
    return context.run(bindings, work, ...args);
  } catch (error) {
    return Promise.reject(error);
  }
}

export function currentLogContext(): LogContext | undefined {
  return context.getStore();
}

const OURS = Symbol.for('reseller/logger');
const NO_CONTEXT: LogContext = Object.freeze({});

/**
 * A line's own fields over the context's, in a new object. pino's default merge writes the line's
 * fields into the object the mixin returned, which here is the request's or job's own context:
 * every later line of that request or job would then carry every field of the lines before it.
 * `Object.assign` onto a new object, not a spread (docs/performance.md#object-shapes-on-the-hot-path).
 */
const mergeContext = (line: object, bindings: object): object =>
  bindings === NO_CONTEXT ? line : Object.assign({}, bindings, line);

/**
 * Lines go to `destination`, by default stdout written asynchronously: a line is queued and
 * written with the others queued behind it in one system call once the write before it is done,
 * instead of one blocking write per line (bench/RESULTS.md: the request line was a fifth of a
 * balance read's CPU). Nothing waits for a buffer to fill, so a quiet server's lines still appear
 * at once; pino writes out what is queued when the process exits (also on `process.exit`), and a
 * SIGKILL can lose the lines of the last moment. `pretty` (LOG_FORMAT) writes the same lines,
 * redacted the same way, in a form people read at a terminal (src/infra/log-format.ts).
 */
export function createLogger(
  level: string,
  destination?: pino.DestinationStream & { readonly isTTY?: boolean },
  format: LogFormat = 'json',
): Logger {
  const out = destination ?? pino.destination({ dest: 1, sync: false });
  const isTerminal = (destination === undefined ? process.stdout.isTTY : destination.isTTY) === true;
  return redacting(
    pino(
      {
        level,
        base: { service: 'domain-reseller' },
        mixin: () => context.getStore() ?? NO_CONTEXT,
        mixinMergeStrategy: mergeContext,
        formatters: { log: (object) => redactSecrets(object) },
      },
      format === 'pretty'
        ? (prettySink(out, isTerminal && process.env.NO_COLOR === undefined) as pino.DestinationStream)
        : out,
    ),
  );
}

/**
 * pino applies `formatters.log` to a line's own fields only, never to a child logger's bindings
 * (its `formatters.bindings` is reset for children): ours are redacted on the way in.
 */
function redacting(logger: pino.Logger): Logger {
  const own: Logger & { [OURS]: true } = {
    info: logger.info.bind(logger) as Logger['info'],
    warn: logger.warn.bind(logger) as Logger['warn'],
    error: logger.error.bind(logger) as Logger['error'],
    debug: logger.debug.bind(logger) as Logger['debug'],
    child: (bindings) => redacting(logger.child(redactSecrets(bindings))),
    [OURS]: true,
  };
  return own;
}

/** Whether the logger came from `createLogger` (it adds the log context itself). */
export function isOwnLogger(logger: Logger): boolean {
  return (logger as unknown as Record<symbol, unknown>)[OURS] === true;
}

/**
 * A host's own logger with the request id added to every line, as ours has it. The host's
 * logger does its own redaction; it is given what ours would be.
 */
export function withLogContext(logger: Logger): Logger {
  const bind = (obj: object): object => {
    const store = context.getStore();
    return store ? Object.assign({}, store, obj) : obj;
  };
  return {
    info: (obj, msg) => logger.info(bind(obj), msg),
    warn: (obj, msg) => logger.warn(bind(obj), msg),
    error: (obj, msg) => logger.error(bind(obj), msg),
    debug: (obj, msg) => logger.debug(bind(obj), msg),
    child: (bindings) => withLogContext(logger.child(bindings)),
  };
}
