/**
 * Request bodies may be compressed (docs/api.md): `Content-Encoding: gzip`, `deflate` or `br`,
 * any letter case, or `identity`. A body that does not decode as it says is a 400; any other
 * encoding (or a list of them) is a 415. Both are the client's fault, never a 500.
 */

/** An HTTP-level refusal of the request itself, with its status and the message the client sees. */
export class HttpInputError extends Error {
  constructor(
    readonly status: 400 | 413 | 415,
    message: string,
  ) {
    super(message);
    this.name = 'HttpInputError';
  }
}

const DECODED = new Set(['gzip', 'deflate', 'br']);

/** The body's content coding, lower-cased (undefined for none or `identity`); a 415 for one we do not decode. */
export function bodyEncoding(header: string | undefined): string | undefined {
  const encoding = (header ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return undefined;
  if (DECODED.has(encoding)) return encoding;
  throw new HttpInputError(
    415,
    `Content-Encoding ${JSON.stringify(encoding.slice(0, 40))} is not supported; send the body uncompressed or as gzip, deflate or br`,
  );
}
