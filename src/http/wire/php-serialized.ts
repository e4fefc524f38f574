import { DomainError } from '../../core/common/errors';

/** What a PHP-serialized array may hold once read: plain data only. */
export type PhpValue = string | number | boolean | null | PhpArray;
export interface PhpArray {
  [key: string]: PhpValue;
}

const LIMITS = {
  /** Decoded bytes. */
  bytes: 16 * 1024,
  depth: 4,
  /** Array elements in total, all levels. */
  elements: 500,
} as const;

const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

const bad = (why: string) =>
  new DomainError('validation_failed', `domainfields is not a base64 PHP-serialized array: ${why}`);

/**
 * Decodes `domainfields` (docs/api.md#domainfields): base64 of a PHP `serialize()`d array of TLD-specific
 * fields. A small strict reader of the plain-data subset (`a`, `s`, `i`, `d`, `b`, `N`): it never
 * builds objects (`O`, `C`, enums), never follows references (`r`, `R`), checks every length,
 * bounds size, depth and element count, and refuses trailing bytes. Arrays become
 * prototype-less records keyed by the PHP keys as text. An empty value is no fields.
 */
export function decodeDomainFields(input: string): PhpArray {
  // A form encoder that left "+" unescaped turned it into a space.
  const text = input.trim().replace(/ /g, '+');
  if (text === '') return Object.create(null);
  if (text.length > Math.ceil(LIMITS.bytes / 3) * 4 + 4) throw bad(`it is larger than ${LIMITS.bytes / 1024} KiB`);
  if (!BASE64.test(text)) throw bad('it is not base64');
  const bytes = Buffer.from(text, 'base64');
  if (bytes.length > LIMITS.bytes) throw bad(`it is larger than ${LIMITS.bytes / 1024} KiB`);
  const value = new Reader(bytes).readDocument();
  return value;
}

class Reader {
  private pos = 0;
  private elements = 0;

  constructor(private readonly bytes: Buffer) {}

  readDocument(): PhpArray {
    if (this.bytes.length === 0) return Object.create(null);
    if (this.peek() !== 0x61 /* a */) throw bad('the top level must be an array');
    const value = this.readValue(1) as PhpArray;
    if (this.pos !== this.bytes.length) throw bad(`unexpected data after the array at byte ${this.pos}`);
    return value;
  }

  private readValue(depth: number): PhpValue {
    const type = String.fromCharCode(this.next());
    switch (type) {
      case 'N':
        this.expect(';');
        return null;
      case 'b': {
        this.expect(':');
        const digit = String.fromCharCode(this.next());
        if (digit !== '0' && digit !== '1') throw bad(`a boolean must be 0 or 1 at byte ${this.pos - 1}`);
        this.expect(';');
        return digit === '1';
      }
      case 'i': {
        this.expect(':');
        return this.readInteger(';');
      }
      case 'd': {
        this.expect(':');
        const textValue = this.readUntil(';');
        if (!/^-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(textValue))
          throw bad(`"${textValue.slice(0, 20)}" is not a finite number`);
        const number = Number(textValue);
        if (!Number.isFinite(number)) throw bad('numbers must be finite');
        return number;
      }
      case 's':
        return this.readString();
      case 'a':
        return this.readArray(depth);
      case 'O':
      case 'C':
      case 'E':
        throw bad('serialized objects are refused');
      case 'r':
      case 'R':
        throw bad('references are refused');
      default:
        throw bad(`unsupported value type "${type.replace(/[^\x20-\x7e]/g, '?')}" at byte ${this.pos - 1}`);
    }
  }

  private readArray(depth: number): PhpArray {
    if (depth > LIMITS.depth) throw bad(`arrays are nested more than ${LIMITS.depth} levels deep`);
    this.expect(':');
    const count = this.readInteger(':');
    if (count < 0) throw bad('an array cannot have a negative size');
    this.elements += count;
    if (this.elements > LIMITS.elements) throw bad(`more than ${LIMITS.elements} elements`);
    this.expect('{');
    const out: PhpArray = Object.create(null);
    for (let i = 0; i < count; i++) {
      const keyType = String.fromCharCode(this.next());
      let key: string;
      if (keyType === 'i') {
        this.expect(':');
        key = String(this.readInteger(';'));
      } else if (keyType === 's') {
        key = this.readString();
      } else {
        throw bad('array keys must be integers or strings');
      }
      if (FORBIDDEN_KEYS.has(key)) throw bad(`the key "${key}" is not allowed`);
      if (Object.hasOwn(out, key)) throw bad(`the key "${key.slice(0, 40)}" appears twice`);
      out[key] = this.readValue(depth + 1);
    }
    this.expect('}');
    return out;
  }

  /** `s:<byte length>:"<bytes>";` — the length counts UTF-8 bytes, as PHP does. */
  private readString(): string {
    this.expect(':');
    const length = this.readInteger(':');
    if (length < 0 || this.pos + length + 3 > this.bytes.length)
      throw bad(`a string length runs past the end at byte ${this.pos}`);
    this.expect('"');
    const slice = this.bytes.subarray(this.pos, this.pos + length);
    this.pos += length;
    this.expect('"');
    this.expect(';');
    try {
      return utf8.decode(slice);
    } catch {
      throw bad('strings must be UTF-8');
    }
  }

  private readInteger(terminator: string): number {
    const textValue = this.readUntil(terminator);
    if (!/^-?\d{1,16}$/.test(textValue)) throw bad(`"${textValue.slice(0, 20)}" is not an integer`);
    const number = Number(textValue);
    if (!Number.isSafeInteger(number)) throw bad('integers must fit in 53 bits');
    return number;
  }

  private readUntil(terminator: string): string {
    const end = this.bytes.indexOf(terminator.charCodeAt(0), this.pos);
    if (end < 0 || end - this.pos > 32) throw bad(`expected "${terminator}" at byte ${this.pos}`);
    const textValue = this.bytes.toString('latin1', this.pos, end);
    this.pos = end + 1;
    return textValue;
  }

  private expect(char: string): void {
    if (this.next() !== char.charCodeAt(0)) throw bad(`expected "${char}" at byte ${this.pos - 1}`);
  }

  private next(): number {
    if (this.pos >= this.bytes.length) throw bad('it ends too early');
    return this.bytes[this.pos++];
  }

  private peek(): number {
    return this.bytes[this.pos];
  }
}
