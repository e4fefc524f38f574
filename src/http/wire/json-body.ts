import { DomainError } from '../../core/common/errors';
import { fromJson, type WireParams } from './form-body';

/**
 * A JSON body, read with the same rule as a form (docs/api.md#requests): a field sent twice is a
 * 400, never a silent pick of the last value as `JSON.parse` would make.
 */
export function parseJsonBody(text: string): WireParams {
  if (text.trim() === '') return Object.create(null);
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('validation_failed', 'The request body cannot be parsed; check its encoding and syntax');
  }
  const repeated = duplicateJsonKey(text);
  if (repeated !== undefined)
    throw new DomainError('validation_failed', `the JSON body has the field ${repeated.slice(0, 120)} twice`);
  return fromJson(parsed);
}

interface Level {
  /** The keys seen in this object; undefined for an array. */
  readonly keys?: Set<string>;
  /** The key or index this level's current value sits under. */
  at: string;
  index: number;
}

/**
 * The first key that appears twice in one object of `text`, as a dotted path (`contacts.registrant.firstname`,
 * list positions as numbers). Keys are compared as decoded, so `"\u0061"` and `"a"` are the same key.
 * `text` must already be known to be valid JSON: the scan only follows its structure.
 */
export function duplicateJsonKey(text: string): string | undefined {
  const levels: Level[] = [];
  let expectKey = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const d = text.charCodeAt(i);
        if (d === 0x5c /* \ */) {
          escaped = true;
          i++;
        } else if (d === 0x22) break;
      }
      const level = levels[levels.length - 1];
      if (expectKey && level?.keys) {
        const key: string = escaped ? JSON.parse(text.slice(start, i + 1)) : text.slice(start + 1, i);
        level.at = key;
        if (level.keys.has(key)) return path(levels);
        level.keys.add(key);
        expectKey = false;
      }
    } else if (c === 0x7b /* { */) {
      levels.push({ keys: new Set(), at: '', index: 0 });
      expectKey = true;
    } else if (c === 0x5b /* [ */) {
      levels.push({ at: '0', index: 0 });
      expectKey = false;
    } else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      levels.pop();
      expectKey = false;
    } else if (c === 0x2c /* , */) {
      const level = levels[levels.length - 1];
      if (level?.keys) expectKey = true;
      else if (level) {
        level.index += 1;
        level.at = String(level.index);
      }
    }
  }
  return undefined;
}

function path(levels: readonly Level[]): string {
  return levels.map((level) => level.at).join('.');
}
