/** A value the SDK can put into a PHP-style form body. `null`, `undefined` and empty lists or objects are left out, as PHP clients do. */
export type FormValue =
  | string
  | number
  | boolean
  | null
  | undefined
  | readonly FormValue[]
  | { readonly [key: string]: FormValue };

export interface FormEncodingOptions {
  /** Top-level list parameters sent by repeating the name (`tldsToInclude=.com&tldsToInclude=.net`, docs/api.md#requests) instead of `name[0]=…`. */
  readonly repeat?: readonly string[];
}

/**
 * Encodes parameters as `application/x-www-form-urlencoded` with PHP-bracket nesting, the way
 * billing platforms send them (docs/api.md#requests): `nameservers[ns1]=…`, `contacts[Registrant][firstname]=…`,
 * `dnsrecords[0][hostname]=…`. Booleans become `true`/`false` (docs/api.md#requests); numbers must be finite.
 */
export function encodeForm(params: { readonly [key: string]: FormValue }, options: FormEncodingOptions = {}): string {
  const repeat = new Set(options.repeat ?? []);
  const out = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (repeat.has(key) && Array.isArray(value)) {
      for (const item of value as readonly FormValue[]) {
        const scalar = scalarText(item, key);
        if (scalar !== undefined) out.append(key, scalar);
      }
    } else {
      flatten(key, value, out);
    }
  }
  return out.toString();
}

function flatten(name: string, value: FormValue, out: URLSearchParams): void {
  if (Array.isArray(value)) {
    for (const [index, item] of (value as readonly FormValue[]).entries()) flatten(`${name}[${index}]`, item, out);
    return;
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value as { readonly [key: string]: FormValue }))
      flatten(`${name}[${key}]`, item, out);
    return;
  }
  const scalar = scalarText(value, name);
  if (scalar !== undefined) out.append(name, scalar);
}

function scalarText(value: FormValue, name: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError(`${name} must be a finite number`);
    return String(value);
  }
  if (typeof value === 'string') return value;
  throw new TypeError(`${name} must be a text, number or boolean value`);
}

/** A value of a `domainfields` array (TLD-specific fields). */
export type PhpValue = string | number | boolean | null | readonly PhpValue[] | { readonly [key: string]: PhpValue };

/**
 * docs/api.md#register-a-domain `domainfields`: base64 of a PHP-serialized array. Strings are measured in UTF-8 bytes,
 * as PHP does; integer-looking keys are written as integer keys.
 */
export function encodeDomainFields(fields: { readonly [key: string]: PhpValue }): string {
  return Buffer.from(phpSerialize(fields), 'utf8').toString('base64');
}

function phpSerialize(value: PhpValue): string {
  if (value === null) return 'N;';
  if (typeof value === 'boolean') return `b:${value ? 1 : 0};`;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new TypeError('domain field numbers must be finite');
    return Number.isInteger(value) ? `i:${value};` : `d:${value};`;
  }
  if (typeof value === 'string') return `s:${Buffer.byteLength(value, 'utf8')}:"${value}";`;
  const entries = Array.isArray(value)
    ? (value as readonly PhpValue[]).map((v, i) => [String(i), v] as const)
    : Object.entries(value);
  const body = entries
    .map(
      ([key, item]) =>
        `${/^(0|-?[1-9]\d{0,17})$/.test(key) ? `i:${key};` : phpSerialize(key)}${phpSerialize(item as PhpValue)}`,
    )
    .join('');
  return `a:${entries.length}:{${body}}`;
}
