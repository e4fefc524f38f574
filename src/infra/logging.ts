import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import type { Logger } from '../core/shared/logger';

/**
 * Keys never written to a log, at any depth (up to 4 levels): credentials (the token header, API
 * keys, the master key), EPP codes, and contact details (a domain's contacts and their fields).
 * Defence in depth: the code logs none of these on purpose; this catches one that slips in.
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'token', 'apikey', 'api_key', 'sealedapikey', 'masterkey', 'password', 'authorization', 'cookie',
  'eppcode', 'authcode', 'transfertag',
  'contacts', 'contactdetails', 'contact', 'registrant', 'registrantemail', 'registrantemailaddress',
  'email', 'emailaddress', 'email address', 'phonenumber', 'phone', 'phone number', 'address1', 'address2', 'firstname', 'lastname',
  'fullname', 'companyname', 'postcode', 'tax_id',
]);
const CENSOR = '[redacted]';
const MAX_DEPTH = 4;

const isPlain = (value: unknown): value is Record<string, unknown> => {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
};

/**
 * The log object with every secret key censored, copied only where something is censored (a
 * clean line, the usual case, costs a walk over its keys and no allocation). pino's own `redact`
 * needs a path per depth, and its wildcard paths cost tens of microseconds a line.
 */
export function scrub<T>(value: T, depth = 0): T {
  if (depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) {
    let copy: unknown[] | undefined;
    value.forEach((item, i) => {
      const clean = scrub(item, depth + 1);
      if (clean !== item) (copy ??= [...value])[i] = clean;
    });
    return (copy ?? value) as T;
  }
  if (!isPlain(value)) return value;
  let copy: Record<string, unknown> | undefined;
  for (const key in value) {
    const item = value[key];
    const clean = SECRET_KEYS.has(key.toLowerCase()) ? CENSOR : typeof item === 'object' && item !== null ? scrub(item, depth + 1) : item;
    if (clean !== item) (copy ??= { ...value })[key] = clean;
  }
  return (copy ?? value) as T;
}

/** The request (or background pass) a log line belongs to; every line written inside it carries these fields. */
export interface LogContext {
  readonly reqId?: string;
  readonly job?: string;
}

const context = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `bindings` added to every log line it writes, through any logger of this module. */
export function runWithLogContext<T>(bindings: LogContext, work: () => T): T {
  return context.run(bindings, work);
}

export function currentLogContext(): LogContext | undefined {
  return context.getStore();
}

const OURS = Symbol.for('reseller/logger');

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const logger = pino({
    level,
    base: { service: 'domain-reseller' },
    mixin: () => context.getStore() ?? {},
    formatters: { log: (object) => scrub(object) },
  }, destination);
  return Object.assign(logger, { [OURS]: true });
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
    return store ? { ...store, ...obj } : obj;
  };
  return {
    info: (obj, msg) => logger.info(bind(obj), msg),
    warn: (obj, msg) => logger.warn(bind(obj), msg),
    error: (obj, msg) => logger.error(bind(obj), msg),
    debug: (obj, msg) => logger.debug(bind(obj), msg),
    child: (bindings) => withLogContext(logger.child(bindings)),
  };
}
