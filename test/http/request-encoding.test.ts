import http from 'node:http';
import type { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import { ROUTES } from '../../src/http/routes';
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

  const path = (p: string) => p.replace(':domain', OWNED);
  const routes = ROUTES.map((r) => [r.method.toUpperCase(), r.path] as const);

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
