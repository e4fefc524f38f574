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
  return parseSimpleForm(text) ?? parseAnyForm(text);
}

/** `parseForm` through qs, for every form. */
export function parseAnyForm(text: string): WireParams {
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

/**
 * A key of a simple form, once decoded: a name, then up to 5 `[name]` parts; no name holds a
 * bracket. (A part of digits alone would make a list: checked per part.)
 */
const SIMPLE_KEY = /^[^[\]]+(?:\[[^[\]]+\]){0,5}$/;
const KEY_PART = /\[([^[\]]+)\]/g;
const DIGITS = /^\d+$/;
const ENCODED_OPEN = /%5B/gi;
const ENCODED_CLOSE = /%5D/gi;

/**
 * The form as `parseForm`'s qs options read it, worked out directly for the forms billing modules
 * send (every key a name with named `[part]`s, each key once; brackets percent-encoded, as PHP's
 * `http_build_query` sends them, or not; names with spaces, like WHMCS's `First Name`): undefined
 * for anything else (lists, repeated keys, keys a prototype has, odd syntax), which qs reads. The
 * answer is qs's own for every form it gives one for (test/unit/http/form-body.test.ts compares
 * them); it spares an order's form qs's general machinery (bench/RESULTS.md).
 */
export function parseSimpleForm(form: string): WireParams | undefined {
  if (form === '') return undefined;
  // qs's own first step: encoded brackets anywhere in the form (values too) read as brackets.
  const text = form.indexOf('%5') === -1 ? form : form.replace(ENCODED_OPEN, '[').replace(ENCODED_CLOSE, ']');
  const root: WireParams = Object.create(null);
  let start = 0;
  let pairs = 0;
  while (start <= text.length) {
    let end = text.indexOf('&', start);
    if (end === -1) end = text.length;
    if (++pairs > 1000) return undefined;
    const equals = text.indexOf('=', start);
    if (equals === -1 || equals >= end) return undefined;
    // qs ends a key at the first "]=" of the pair when there is one.
    const bracketEquals = text.indexOf(']=', start);
    if (bracketEquals !== -1 && bracketEquals < end && bracketEquals + 1 !== equals) return undefined;
    // Like qs: the key is decoded first, then split at its brackets.
    const key = decodeFormText(text.slice(start, equals));
    if (!SIMPLE_KEY.test(key)) return undefined;
    const value = decodeFormText(text.slice(equals + 1, end));
    const open = key.indexOf('[');
    const names = open === -1 ? [key] : [key.slice(0, open)];
    if (open !== -1)
      for (const part of key.slice(open).matchAll(KEY_PART)) {
        if (DIGITS.test(part[1]!)) return undefined;
        names.push(part[1]!);
      }
    let target = root;
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (FORBIDDEN_KEYS.has(name) || name in Object.prototype) return undefined;
      const existing = target[name];
      if (i === names.length - 1) {
        if (existing !== undefined) return undefined;
        target[name] = value;
      } else if (existing === undefined) {
        const next: WireParams = Object.create(null);
        target[name] = next;
        target = next;
      } else if (typeof existing === 'object' && !Array.isArray(existing)) {
        target = existing;
      } else {
        return undefined;
      }
    }
    start = end + 1;
  }
  return root;
}

/** qs's decoding of a key or value: `+` is a space, then percent-decoding, the text as it is when that fails. */
function decodeFormText(text: string): string {
  if (text.indexOf('%') === -1) return text.indexOf('+') === -1 ? text : text.replace(/\+/g, ' ');
  const spaced = text.replace(/\+/g, ' ');
  try {
    return decodeURIComponent(spaced);
  } catch {
    return spaced;
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
