import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { ROUTES } from '../../src/http/routes';
import { noInput } from '../../src/http/wire/schemas';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { form } from '../support/wire';

/** One request as a billing platform's HTTP client sends it, with the exact bytes and headers given. */
function send(port: number, method: string, path: string, headers: Record<string, string>, body: Buffer) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method, path, headers: { ...headers, 'content-length': String(body.length) } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString()) }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('compressed request bodies (Content-Encoding)', () => {
  let h: Harness;
  let port: number;
  const OWNED = 'encoded-owned.com';
  beforeAll(async () => {
    h = await startHarness();
    if (!h.server.listening) await new Promise((resolve) => h.server.once('listening', resolve));
    port = (h.server.address() as AddressInfo).port;
    await givenDomain(h.module, OWNED);
  });
  afterAll(async () => {
    await h.close();
  });

  const formHeaders = (encoding: string) => ({
    ...h.headers(),
    'content-type': 'application/x-www-form-urlencoded',
    'content-encoding': encoding,
  });
  const body = form({ domain: 'example.org' });

  it.each([
    ['gzip', zlib.gzipSync(body)],
    ['deflate', zlib.deflateSync(body)],
    ['br', zlib.brotliCompressSync(body)],
    ['GZip', zlib.gzipSync(body)],
  ])('decodes a form body sent as %s', async (encoding, compressed) => {
    const res = await send(port, 'GET', '/order/pricing/domains/register', formHeaders(encoding), compressed);
    expect(res).toEqual({ status: 200, body: { '1': '10.00', '2': '19.50', '5': '45.00' } });
  });

  it('decodes a gzip JSON body', async () => {
    const res = await send(
      port,
      'GET',
      '/order/pricing/domains/register',
      { ...h.headers(), 'content-type': 'application/json', 'content-encoding': 'gzip' },
      zlib.gzipSync(JSON.stringify({ domain: 'example.org' })),
    );
    expect(res).toEqual({ status: 200, body: { '1': '10.00', '2': '19.50', '5': '45.00' } });
  });

  it('answers 413 for a compressed body that is larger than 64 KiB once decoded', async () => {
    const bomb = zlib.gzipSync(`domain=example.org&pad=${'x'.repeat(1024 * 1024)}`);
    const res = await send(port, 'GET', '/order/pricing/domains/register', formHeaders('gzip'), bomb);
    expect(res).toEqual({ status: 413, body: { error: 'The request body is larger than 64 KiB' } });
  });

  it.each([
    ['a brotli body that does not decode', 'br', zlib.gzipSync(body), 'application/x-www-form-urlencoded'],
    ['a brotli body that decodes', 'br', zlib.brotliCompressSync(body), 'application/x-www-form-urlencoded'],
    ['a body of a type the API does not read', 'identity', Buffer.from('<x/>'), 'text/xml'],
  ])('a route that takes no parameters ignores %s without reading it', async (_, encoding, bytes, type) => {
    const res = await send(port, 'GET', '/healthz', { 'content-type': type, 'content-encoding': encoding }, bytes);
    expect(res).toEqual({ status: 200, body: { status: 'ok' } });
  });

  it('refuses a compressed body larger than 64 KiB as sent with 413, before decoding it', async () => {
    const noise = zlib.gzipSync(Buffer.from(Array.from({ length: 70 * 1024 }, (_, i) => (i * 7919) % 251)), {
      level: 0,
    });
    const res = await send(port, 'GET', '/order/pricing/domains/register', formHeaders('gzip'), noise);
    expect(res).toEqual({ status: 413, body: { error: 'The request body is larger than 64 KiB' } });
  });

  const path = (p: string) => p.replace(':domain', OWNED);
  // A route that takes no parameters never reads a body (tested above); these do.
  const routes = ROUTES.filter((r) => r.input !== noInput).map((r) => [r.method.toUpperCase(), r.path] as const);
  const withoutInput = ROUTES.filter((r) => r.input === noInput).map((r) => [r.method.toUpperCase(), r.path] as const);

  it.each(withoutInput)('%s %s: takes no parameters and ignores a body it cannot decode', async (method, routePath) => {
    const res = await send(port, method, routePath, formHeaders('br'), Buffer.from(body));
    expect(res.status).toBe(200);
  });

  it.each(routes)('%s %s: a body that is not what its Content-Encoding says is a 400', async (method, routePath) => {
    for (const encoding of ['gzip', 'deflate', 'br']) {
      const res = await send(port, method, path(routePath), formHeaders(encoding), Buffer.from(body));
      expect(res).toEqual({
        status: 400,
        body: { error: `The request body is not valid ${encoding} data, as its Content-Encoding says` },
      });
    }
  });

  it.each(routes)('%s %s: an encoding the server does not decode is a 415', async (method, routePath) => {
    for (const encoding of ['compress', 'gzip, br', 'zstd']) {
      const res = await send(port, method, path(routePath), formHeaders(encoding), Buffer.from(body));
      expect(res).toEqual({
        status: 415,
        body: {
          error: `Content-Encoding "${encoding}" is not supported; send the body uncompressed or as gzip, deflate or br`,
        },
      });
    }
  });
});
