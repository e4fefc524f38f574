import qs from 'qs';
import { DomainError } from '../../core/common/errors';

export type WireValue = string | WireValue[] | { [key: string]: WireValue };
export type WireParams = { [key: string]: WireValue };

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const MAX_DEPTH = 5;

/**
 * PHP-bracket form parsing as billing platforms send it: `nameservers[ns1]=…`,
 * `contacts[registrant][firstname]=…`, repeated names, `name[]=` and `name[0]=` lists.
 * Objects are created without a prototype; nesting deeper than 5 levels or more than 1000
 * parameters is refused rather than silently truncated.
 */
export function parseForm(text: string): WireParams {
  try {
    const parsed = qs.parse(text, {
      depth: MAX_DEPTH,
      strictDepth: true,
      parameterLimit: 1000,
      throwOnLimitExceeded: true,
      arrayLimit: 100,
      allowPrototypes: false,
      plainObjects: true,
      allowDots: false,
      charset: 'utf-8',
      duplicates: 'combine',
    }) as WireParams;
    assertSafe(parsed, 0);
    return parsed;
  } catch (error) {
    if (error instanceof DomainError) throw error;
    throw new DomainError(
      'validation_failed',
      `the form body cannot be parsed: ${error instanceof Error ? error.message : 'malformed'}`,
    );
  }
}

/** JSON bodies get the same rules as forms: plain objects, strings at the leaves, bounded depth, no prototype keys. */
export function fromJson(body: unknown): WireParams {
  if (body === undefined || body === null) return Object.create(null);
  if (typeof body !== 'object' || Array.isArray(body))
    throw new DomainError('validation_failed', 'a JSON body must be an object');
  const converted = toWire(body, 0);
  return converted as WireParams;
}

function toWire(value: unknown, depth: number): WireValue {
  if (depth > MAX_DEPTH + 1)
    throw new DomainError('validation_failed', `the body is nested more than ${MAX_DEPTH} levels deep`);
  if (value === null || value === undefined) return '';
  if (Array.isArray(value)) return value.map((v) => toWire(v, depth + 1));
  if (typeof value === 'object') {
    const out: { [key: string]: WireValue } = Object.create(null);
    for (const [key, v] of Object.entries(value)) {
      if (FORBIDDEN_KEYS.has(key))
        throw new DomainError('validation_failed', `the body contains the forbidden key "${key}"`);
      out[key] = toWire(v, depth + 1);
    }
    return out;
  }
  return String(value);
}

function assertSafe(value: unknown, depth: number): void {
  if (depth > MAX_DEPTH + 1)
    throw new DomainError('validation_failed', `the body is nested more than ${MAX_DEPTH} levels deep`);
  if (typeof value !== 'object' || value === null) return;
  for (const key of Object.keys(value)) {
    if (FORBIDDEN_KEYS.has(key))
      throw new DomainError('validation_failed', `the body contains the forbidden key "${key}"`);
    assertSafe((value as Record<string, unknown>)[key], depth + 1);
  }
}
