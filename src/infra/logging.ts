import pino from 'pino';
import type { Logger } from '../core/shared/logger';

/**
 * Keys never written to a log, at any depth of a log line or of a child logger's bindings
 * (down to 6 levels; lists included). The whole value is replaced, objects too (`contacts`).
 */
export const SECRET_KEYS: ReadonlySet<string> = new Set([
  'token', 'apiKey', 'sealedApiKey', 'masterKey', 'password', 'eppcode', 'authCode', 'contacts',
  // A database error carries its statement with the values written in (mysql2's `err.sql`) or beside
  // it (`bindings`): contacts, keys. The message keeps the statement with placeholders (connect.ts).
  'sql', 'bindings',
]);
export const CENSOR = '[redacted]';
const MAX_DEPTH = 6;

/**
 * Returns the log object with secrets replaced, copying only what changes: a line without
 * secrets (the request log, nearly every line) comes back as it is, allocation-free. It replaces
 * pino's `redact` paths, whose wildcards (`*.token`) cost about 6 µs a line, a tenth of an
 * authenticated read (bench/RESULTS.md, hot-path changes), and it reaches deeper than they did.
 */
export function redactSecrets<T extends object>(obj: T): T {
  return redactLevel(obj, 0) as T;
}

function redactLevel(value: object, depth: number): object {
  let copy: Record<string, unknown> | undefined;
  const source = value as Record<string, unknown>;
  for (const key of Object.keys(source)) {
    const field = source[key];
    let replaced = field;
    if (SECRET_KEYS.has(key)) replaced = CENSOR;
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
      if (key in value) Object.defineProperty(copy, key, { value: (value as unknown as Record<string, unknown>)[key], enumerable: false, writable: true });
    }
    return Object.assign(copy, value);
  }
  return { ...value };
}

export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  const root = pino({ level, formatters: { log: redactSecrets }, base: { service: 'domain-reseller' } }, destination);
  // pino applies formatters.bindings to the base bindings only; a child's bindings are redacted
  // here. Children are made from their parent's prototype chain, so every descendant gets this.
  const makeChild = Object.getPrototypeOf(root).child as pino.Logger['child'];
  root.child = function child(this: pino.Logger, bindings, options) {
    return makeChild.call(this, redactSecrets(bindings), options);
  } as pino.Logger['child'];
  return root;
}
