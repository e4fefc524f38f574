import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import type { IncomingMessage } from 'node:http';
import { RequestBodyReader, type BodyDecoder } from '../../../src/http/request-body';
import { duplicateJsonKey } from '../../../src/http/wire/json-body';

const request = (bytes: Buffer): IncomingMessage =>
  Object.assign(Readable.from([bytes]), { headers: { 'content-length': String(bytes.length) } }) as never;

describe('RequestBodyReader', () => {
  it('decodes at most the configured number of compressed bodies at once; the others wait their turn', async () => {
    let inFlight = 0;
    let most = 0;
    const waiting: Array<() => void> = [];
    const decode: BodyDecoder = async (_encoding, data) => {
      inFlight += 1;
      most = Math.max(most, inFlight);
      await new Promise<void>((resolve) => waiting.push(resolve));
      inFlight -= 1;
      return data;
    };
    const reader = new RequestBodyReader({ limitBytes: 1024, decodersInFlight: 2, decode });
    const reads = Array.from({ length: 6 }, (_, i) => reader.read(request(Buffer.from(`n=${i}`)), 'br'));
    for (let done = 0; done < 6; done++) {
      while (waiting.length === 0) await new Promise((resolve) => setImmediate(resolve));
      expect(inFlight).toBeLessThanOrEqual(2);
      waiting.shift()!();
    }
    expect(await Promise.all(reads)).toEqual(['n=0', 'n=1', 'n=2', 'n=3', 'n=4', 'n=5']);
    expect(most).toBe(2);
  });

  it('gives the slot back when a body fails to decode', async () => {
    const reader = new RequestBodyReader({ limitBytes: 1024, decodersInFlight: 1 });
    await expect(reader.read(request(Buffer.from('not brotli')), 'br')).rejects.toMatchObject({ status: 400 });
    await expect(reader.read(request(zlib.brotliCompressSync('a=1')), 'br')).resolves.toBe('a=1');
  });

  it('refuses a body that decodes to more than the limit with 413, and frees the slot', async () => {
    const reader = new RequestBodyReader({ limitBytes: 1024, decodersInFlight: 1 });
    const bomb = zlib.brotliCompressSync(Buffer.alloc(10 * 1024 * 1024, 120));
    await expect(reader.read(request(bomb), 'br')).rejects.toMatchObject({ status: 413 });
    await expect(reader.read(request(zlib.gzipSync('a=1')), 'gzip')).resolves.toBe('a=1');
  });

  it('refuses a body larger than the limit as sent with 413 without decoding it', async () => {
    const decode: BodyDecoder = () => Promise.reject(new Error('must not be called'));
    const reader = new RequestBodyReader({ limitBytes: 16, decodersInFlight: 1, decode });
    await expect(reader.read(request(Buffer.alloc(17, 1)), 'gzip')).rejects.toMatchObject({ status: 413 });
  });
});

describe('duplicateJsonKey', () => {
  it.each([
    ['{"a":1,"a":2}', 'a'],
    ['{"a":{"b":1,"c":{"d":[1,{"e":1,"e":2}]}}}', 'a.c.d.1.e'],
    ['{"a\\"b":1,"a\\u0022b":2}', 'a"b'],
    ['[{"x":1},{"y":{"x":1,"x":1}}]', '1.y.x'],
  ])('finds the repeated key in %s', (text, key) => {
    expect(duplicateJsonKey(text)).toBe(key);
  });

  it.each(['{"a":1,"b":{"a":1},"c":[{"a":1},{"a":2}]}', '{"a":"a","b":"a"}', '{"a":"{\\"a\\":1,","b":"\\\\"}', '{}'])(
    'finds none in %s',
    (text) => {
      expect(duplicateJsonKey(text)).toBeUndefined();
    },
  );
});
