import { AsyncLocalStorage } from 'node:async_hooks';
import pino from 'pino';
import type { Logger } from '../core/shared/logger';

/**
 * Paths never written to a log, wherever they appear: credentials (the token header, API keys,
 * the master key), EPP codes, and contact details (a domain's contacts and their fields).
 * Defence in depth: the code logs none of these on purpose; this catches one that slips in.
 */
const SECRET_KEYS = [
  'token', 'apiKey', 'apikey', 'api_key', 'sealedApiKey', 'masterKey', 'password', 'authorization', 'cookie',
  'eppcode', 'eppCode', 'authCode', 'transfertag', 'transferTag',
  'contacts', 'contactdetails', 'contact', 'registrant', 'registrantEmail', 'registrantEmailAddress',
  'email', 'phonenumber', 'phone', 'address1', 'address2', 'firstname', 'lastname', 'fullname', 'companyname', 'postcode', 'tax_id',
];
export const REDACTED_PATHS = SECRET_KEYS.flatMap((key) => [key, `*.${key}`, `*.*.${key}`]);

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
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    base: { service: 'domain-reseller' },
    mixin: () => context.getStore() ?? {},
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
