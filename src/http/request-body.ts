import type { IncomingMessage } from 'node:http';
import { promisify } from 'node:util';
import zlib from 'node:zlib';
import getRawBody from 'raw-body';
import { HttpInputError } from './content-encoding';

/** Decodes one whole compressed body, refusing output over `maxOutputLength` bytes. */
export type BodyDecoder = (encoding: string, data: Buffer, maxOutputLength: number) => Promise<Buffer>;

const DECODERS: Record<string, (data: Buffer, options: zlib.ZlibOptions & zlib.BrotliOptions) => Promise<Buffer>> = {
  gzip: promisify(zlib.gunzip),
  deflate: promisify(zlib.inflate),
  br: promisify(zlib.brotliDecompress),
};

const decodeWithZlib: BodyDecoder = (encoding, data, maxOutputLength) => {
  const decode = DECODERS[encoding];
  if (!decode) return Promise.reject(new Error(`no decoder for ${encoding}`));
  return decode(data, { maxOutputLength });
};

export interface RequestBodyReaderOptions {
  /** The most bytes a body may have, as sent and once decoded. */
  readonly limitBytes: number;
  /** Compressed bodies decoded at once; the others wait for a free decoder. */
  readonly decodersInFlight: number;
  readonly decode?: BodyDecoder;
}

/**
 * Reads a request body as text. A compressed body is first read whole as sent (no more than the
 * limit), then decoded in one call bounded by the limit, with a bounded number of decoders at
 * once. A decoder (a brotli one can hold 16 MiB) then lives only while it decodes: never while a
 * slow client sends, and never after a refusal.
 */
export class RequestBodyReader {
  private readonly decode: BodyDecoder;
  private inFlight = 0;
  private readonly queue: Array<() => void> = [];

  constructor(private readonly options: RequestBodyReaderOptions) {
    this.decode = options.decode ?? decodeWithZlib;
  }

  async read(req: IncomingMessage, encoding: string | undefined): Promise<string> {
    const length = req.headers['content-length'];
    // raw-body's errors carry their status: 413 over the limit, 400 for a body cut short.
    const sent = await getRawBody(req, { limit: this.options.limitBytes, length: length ? Number(length) : undefined });
    if (encoding === undefined) return sent.toString('utf8');
    await this.acquire();
    try {
      return (await this.decode(encoding, sent, this.options.limitBytes)).toString('utf8');
    } catch (error) {
      if ((error as { code?: unknown }).code === 'ERR_BUFFER_TOO_LARGE')
        throw Object.assign(error as Error, { status: 413 });
      throw new HttpInputError(400, `The request body is not valid ${encoding} data, as its Content-Encoding says`);
    } finally {
      this.release();
    }
  }

  private acquire(): Promise<void> {
    if (this.inFlight < this.options.decodersInFlight) {
      this.inFlight += 1;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push(resolve));
  }

  private release(): void {
    const next = this.queue.shift();
    // The slot passes straight to the next waiter: the count stays the same.
    if (next) next();
    else this.inFlight -= 1;
  }
}
