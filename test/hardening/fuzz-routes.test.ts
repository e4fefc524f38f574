import http from 'node:http';
import { brotliDecompressSync, gunzipSync, gzipSync, inflateSync } from 'node:zlib';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import qs from 'qs';
import type { z } from 'zod';
import { buildOpenApiDocument, openApiPath } from '../../src/http/openapi';
import { ROUTES } from '../../src/http/routes';
import type { Route } from '../../src/http/route-table';
import { noInput } from '../../src/http/wire/schemas';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { expectLedgerInvariant } from '../support/ledger-invariant';
import { WHMCS_REGISTRANT } from '../support/wire';

/**
 * Property-based fuzzing of every route of the route table, from its zod schema: random and
 * hostile bodies (forms, JSON, raw bytes, deep nesting, prototype keys, oversized), headers
 * (good and bad credentials, content types, request ids, idempotency keys) and paths (hostile
 * domains, broken percent-encoding, other methods). Every answer must be well-formed: no 500,
 * a 502/504 only when the registrar said no or did not answer, every error exactly
 * `{"error": "<text>"}` without stack traces or SQL, the server alive after each route, and
 * the ledger invariant intact after each (the global hook, test/support/ledger-invariant-hook.ts),
 * and every status one the OpenAPI document lists for that operation. Where the server decides
 * before the route's own validation (credentials, content type, Content-Encoding: gzip, deflate
 * or br that does not decode, or one not taken, size, JSON syntax), the exact status is asserted,
 * not only "no 500". A second suite sends a list and an object in every scalar field of every
 * route (from the OpenAPI input schema, nested ones included) and requires a 400 naming the field.
 * Each test fuzzes its own route when it runs; the summary test fuzzes the routes no earlier test
 * did, so every test passes alone (`-t`) as in the whole file.
 * FUZZ_RUNS sets the requests per route (default 60); FUZZ_SEED replays a failure.
 */
const RUNS = Number(process.env.FUZZ_RUNS ?? 60);
const SEED = process.env.FUZZ_SEED === undefined ? undefined : Number(process.env.FUZZ_SEED);

/** The body keys a route's schema names (objects, pipes, unions, optionals): the fields worth filling. */
function keysOf(schema: z.ZodType, depth = 0): string[] {
  if (depth > 6) return [];
  const shape = (schema as { shape?: Record<string, unknown> }).shape;
  if (shape) return Object.keys(shape);
  const def = (schema as unknown as { _zod?: { def?: Record<string, unknown> } })._zod?.def ?? {};
  const inner = ['in', 'out', 'innerType', 'schema'].map((k) => def[k]).filter(Boolean) as z.ZodType[];
  const options = (def.options as z.ZodType[] | undefined) ?? [];
  return [...new Set([...inner, ...options].flatMap((s) => keysOf(s, depth + 1)))];
}

const OWNED = 'fuzz-owned.com';
const FOREIGN = 'fuzz-foreign.com';

/** A plausible value per known field, so that some requests get past validation to the services and the registrar. */
const PLAUSIBLE: Record<string, fc.Arbitrary<unknown>> = {
  domain: fc.constantFrom(
    OWNED,
    FOREIGN,
    'fuzz-new.com',
    'fuzz-new.net',
    'taken-fuzz.com',
    'fail-fuzz.com',
    'bücher-fuzz.com',
    'xn--bcher-kva.com',
    'fuzz.invalidtld',
  ),
  regperiod: fc.constantFrom('1', '2', '5', '10', '0', '11'),
  nameservers: fc.constantFrom(
    { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
    ['ns1.example.net', 'ns2.example.net'],
    { ns1: '' },
  ),
  contacts: fc.constantFrom({ Registrant: WHMCS_REGISTRANT }, { registrant: { firstname: 'Ada' } }, {}),
  contactdetails: fc.constantFrom({ Registrant: WHMCS_REGISTRANT }, { Admin: { 'First Name': 'A' } }),
  addons: fc.constantFrom({ idprotection: '1' }, { dnsmanagement: 'on', emailforwarding: 'no' }, {}),
  domainfields: fc.constantFrom(
    Buffer.from('a:1:{s:1:"x";s:1:"y";}').toString('base64'),
    'not base64!',
    Buffer.from('O:8:"stdClass":0:{}').toString('base64'),
  ),
  idnLanguage: fc.constantFrom('de', 'zh-Hans', 'x'),
  originalvars: fc.constantFrom({ a: 'b' }, 'text'),
  eppcode: fc.constantFrom('EPP-123', ''),
  searchTerm: fc.constantFrom('shop', 'bücher', 'shop.com', '', '-'),
  punyCodeSearchTerm: fc.constantFrom('xn--bcher-kva', ''),
  tldsToInclude: fc.constantFrom(['.com', '.net'], '.org', ['.nope']),
  isIdnDomain: fc.constantFrom('true', '0', 'maybe'),
  premiumEnabled: fc.constantFrom('1', 'off'),
  suggestionSettings: fc.constantFrom([], ['x']),
  dnsrecords: fc.constantFrom(
    [{ hostname: '@', type: 'A', address: '192.0.2.1', priority: 'N/A' }],
    [{ type: 'MX', priority: '' }],
  ),
  ns1: fc.constantFrom('ns1.example.net', ''),
  ns2: fc.constantFrom('ns2.example.net'),
  ns3: fc.constantFrom('', 'x'),
  ns4: fc.constant(''),
  ns5: fc.constant(''),
  nameserver: fc.constantFrom(`ns1.${OWNED}`, 'ns1.elsewhere.net'),
  ipaddress: fc.constantFrom('192.0.2.1', '2001:db8::1', '999.1.1.1'),
  currentipaddress: fc.constantFrom('192.0.2.1'),
  newipaddress: fc.constantFrom('192.0.2.2', 'x'),
  lockstatus: fc.constantFrom('locked', 'unlocked', ''),
  status: fc.constantFrom('1', '0', '2'),
  transfertag: fc.constantFrom('OTHER', ''),
  prefix: fc.constantFrom(['info'], 'info'),
  forwardto: fc.constantFrom(['me@example.net'], 'x'),
};

const NASTY_STRINGS = [
  '',
  ' ',
  '\t',
  '0',
  '-1',
  '1e309',
  'NaN',
  'true',
  'null',
  'undefined',
  '__proto__',
  'constructor',
  'prototype',
  '../../etc/passwd',
  '%00',
  '\u0000',
  '\uFFFD',
  '\uD800',
  'ｅｘａｍｐｌｅ.com',
  'xn--',
  'xn--zz',
  '.com',
  '..',
  'a.b.c.d.e.f.com',
  '<script>alert(1)</script>',
  "' OR 1=1 --",
  '"; DROP TABLE domains; --',
  '${jndi:ldap://x/a}',
  '{{7*7}}',
  'curl http://x',
  '𝔘𝔫𝔦𝔠𝔬𝔡𝔢',
  'a'.repeat(300),
  'b'.repeat(5000),
  `${'-'.repeat(64)}.com`,
  '🙂.com',
];

/** Any value a form or JSON body can carry, hostile ones well represented. */
const hostileValue: fc.Arbitrary<unknown> = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constantFrom(...NASTY_STRINGS),
    fc.string({ maxLength: 40 }),
    fc.string({ unit: 'grapheme', maxLength: 20 }),
    fc.string({ unit: 'binary', maxLength: 20 }),
    fc.integer().map(String),
    fc.array(tie('value'), { maxLength: 4 }),
    fc.dictionary(
      fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('__proto__', 'constructor', '0', '[]')),
      tie('value'),
      { maxKeys: 4 },
    ),
  ),
})).value;

/** Nesting far past the 5 levels forms and JSON are allowed. */
const deeplyNested = fc.integer({ min: 6, max: 40 }).map((depth) => {
  let value: unknown = 'leaf';
  for (let i = 0; i < depth; i++) value = { a: value };
  return value;
});

function bodyArbitrary(keys: readonly string[]): fc.Arbitrary<Record<string, unknown>> {
  const fields = [...new Set([...keys, 'domain'])];
  const fieldValue = (key: string) =>
    fc.oneof(
      { weight: 3, arbitrary: PLAUSIBLE[key] ?? hostileValue },
      { weight: 2, arbitrary: hostileValue },
      { weight: 1, arbitrary: deeplyNested },
    );
  return fc
    .record(
      {
        ...Object.fromEntries(fields.map((k) => [k, fieldValue(k)])),
        // And some keys the route does not know.
        extra: fc.dictionary(fc.string({ maxLength: 12 }), hostileValue, { maxKeys: 3 }),
      },
      { requiredKeys: [] },
    )
    .map(({ extra, ...rest }) => ({ ...(extra as object), ...rest }));
}

type Encoding = 'form' | 'json' | 'raw' | 'none' | 'proto-form' | 'proto-json' | 'oversized' | 'bad-json';

interface FuzzRequest {
  readonly method: string;
  readonly pathDomain: string | undefined;
  readonly query: Record<string, unknown> | undefined;
  readonly body: Record<string, unknown>;
  readonly encoding: Encoding;
  readonly raw: string;
  readonly contentType: string | undefined;
  readonly auth: 'good' | 'none' | 'bad-token' | 'unknown-user' | 'garbage';
  readonly timestamp: string | undefined;
  readonly requestId: string | undefined;
  readonly idempotencyKey: string | undefined;
  /** How a form or JSON body is compressed, honestly or not (Content-Encoding). */
  readonly compression: Compression;
}

/**
 * `gzip`: compressed as it says; `bad-*`: says gzip/deflate/br (any case) but is not (400);
 * `unsupported`: an encoding the server does not decode (415).
 */
type Compression = 'none' | 'gzip' | 'bad-gzip' | 'bad-deflate' | 'bad-br' | 'unsupported';

/** Percent-encodes UTF-8 bytes (a lone surrogate becomes U+FFFD, as on the wire), unlike encodeURIComponent, which throws. */
const percentEncode = (text: string) =>
  [...Buffer.from(text, 'utf8')]
    .map((b) =>
      /[A-Za-z0-9._~-]/.test(String.fromCharCode(b))
        ? String.fromCharCode(b)
        : `%${b.toString(16).toUpperCase().padStart(2, '0')}`,
    )
    .join('');

/** Header values a real client can put on the wire: printable, Latin-1, no line breaks. */
const headerText = (maxLength: number) =>
  fc.string({
    unit: fc
      .integer({ min: 0x20, max: 0xff })
      .filter((c) => c !== 0x7f)
      .map((c) => String.fromCharCode(c)),
    maxLength,
  });

/** `arbitrary` in `present` of every `outOf` cases, else undefined. */
const sometimes = <T>(arbitrary: fc.Arbitrary<T>, present: number, outOf: number): fc.Arbitrary<T | undefined> =>
  fc.oneof({ weight: present, arbitrary }, { weight: outOf - present, arbitrary: fc.constant(undefined) });

function requestArbitrary(route: Route): fc.Arbitrary<FuzzRequest> {
  const keys = keysOf(route.input);
  const hasDomainInPath = route.path.includes(':domain');
  return fc.record({
    method: fc.oneof(
      { weight: 9, arbitrary: fc.constant(route.method.toUpperCase()) },
      { weight: 1, arbitrary: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS') },
    ),
    pathDomain: hasDomainInPath
      ? fc.oneof(
          {
            weight: 4,
            arbitrary: fc.constantFrom(
              OWNED,
              FOREIGN,
              percentEncode('bücher-fuzz.com'),
              'FUZZ-OWNED.COM',
              'xn--bcher-kva.com',
            ),
          },
          { weight: 3, arbitrary: fc.constantFrom(...NASTY_STRINGS).map(percentEncode) },
          { weight: 2, arbitrary: fc.string({ unit: 'grapheme', maxLength: 60 }).map(percentEncode) },
          {
            weight: 1,
            arbitrary: fc.constantFrom('%zz', '%E0%A4%A', '%ff%fe', 'a%2Fb.com', '%2e%2e', '%00.com', '.', '%20'),
          },
        )
      : fc.constant(undefined),
    query: sometimes(bodyArbitrary(keys), 1, 3),
    body: bodyArbitrary(keys),
    encoding: fc.constantFrom<Encoding>(
      'form',
      'form',
      'json',
      'json',
      'raw',
      'none',
      'proto-form',
      'proto-json',
      'oversized',
      'bad-json',
    ),
    raw: fc.oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: 'binary', maxLength: 200 }),
      fc.constantFrom('a=1&a[b]=2', 'a[]=1&a[0]=2', '%', '=&=&', 'x'.repeat(3000)),
    ),
    contentType: fc.constantFrom(
      undefined,
      'application/x-www-form-urlencoded',
      'application/json',
      'text/plain',
      'application/xml',
      'multipart/form-data; boundary=x',
      'application/json; charset=latin1',
      'garbage/☃'.replace('☃', 'x'),
      '',
    ),
    auth: fc.oneof(
      { weight: 8, arbitrary: fc.constant<FuzzRequest['auth']>('good') },
      { weight: 2, arbitrary: fc.constantFrom<FuzzRequest['auth']>('none', 'bad-token', 'unknown-user', 'garbage') },
    ),
    timestamp: sometimes(
      fc.oneof(fc.constantFrom('0', '-1', '99999999999999999999', '1.5', 'now', ''), headerText(20)),
      1,
      8,
    ),
    requestId: sometimes(headerText(80), 1, 3),
    idempotencyKey: sometimes(fc.oneof(headerText(300), fc.constantFrom('key-1', 'key-2')), 1, 4),
    compression: fc.oneof(
      { weight: 12, arbitrary: fc.constant<Compression>('none') },
      {
        weight: 4,
        arbitrary: fc.constantFrom<Compression>('gzip', 'bad-gzip', 'bad-deflate', 'bad-br', 'unsupported'),
      },
    ),
  });
}

const BAD_ENCODING: Record<Compression, string | undefined> = {
  none: undefined,
  gzip: 'gzip',
  'bad-gzip': 'GZip',
  'bad-deflate': 'deflate',
  'bad-br': 'br',
  unsupported: 'compress',
};

/** The body as sent, with its Content-Encoding: only form and JSON bodies are compressed (or claim to be). */
function compress(
  r: FuzzRequest,
  body: Buffer | undefined,
): { body: Buffer | undefined; encoding: string | undefined } {
  if (!body || body.length === 0 || r.compression === 'none' || (r.encoding !== 'form' && r.encoding !== 'json'))
    return { body, encoding: undefined };
  return { body: r.compression === 'gzip' ? gzipSync(body) : body, encoding: BAD_ENCODING[r.compression] };
}

/**
 * Whether a plain body sent under a compression's name happens to decode anyway: some short texts
 * are valid brotli streams (`=%2BoL8jIEP` is an empty one), and the server rightly takes them.
 */
function decodes(compression: Compression, body: Buffer): boolean {
  const decode = { 'bad-gzip': gunzipSync, 'bad-deflate': inflateSync, 'bad-br': brotliDecompressSync }[
    compression as 'bad-gzip' | 'bad-deflate' | 'bad-br'
  ];
  try {
    decode(body);
    return true;
  } catch {
    return false;
  }
}

const FORM_TYPES = new Set(['application/x-www-form-urlencoded', 'application/json']);
const UNSUPPORTED_TYPES = new Set([
  undefined,
  '',
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'garbage/x',
]);
const CLEAN_PATH_DOMAINS = new Set<string | undefined>([
  undefined,
  OWNED,
  FOREIGN,
  'FUZZ-OWNED.COM',
  'xn--bcher-kva.com',
]);

/**
 * The exact status a request must get when it is decided before the route's own validation, in
 * the order the server checks (docs/api.md#errors-and-status-codes): the credentials (401), then
 * the body's content type (415), its Content-Encoding (415 not taken, 400 not decodable), its size
 * (413) and syntax (400). Undefined when the answer depends on the fields themselves.
 */
function expectedStatus(
  route: Route,
  r: FuzzRequest,
  sent: { body: Buffer | undefined; contentType: string | undefined },
) {
  if (route.access !== 'reseller' || r.method !== route.method.toUpperCase()) return undefined;
  if (!CLEAN_PATH_DOMAINS.has(r.pathDomain)) return undefined;
  if (r.auth !== 'good') return 401;
  if (r.timestamp !== undefined && r.timestamp.trim() !== '') return 401;
  if (r.query !== undefined || !sent.body || sent.body.length === 0) return undefined;
  // A route that takes no parameters never reads a body (docs/api.md#requests).
  if (route.input === noInput) return 200;
  if (UNSUPPORTED_TYPES.has(sent.contentType)) return 415;
  if (!FORM_TYPES.has(sent.contentType ?? '')) return undefined;
  if (r.encoding === 'form' || r.encoding === 'json') {
    if (r.compression === 'unsupported') return 415;
    if (r.compression.startsWith('bad-')) return decodes(r.compression, sent.body) ? undefined : 400;
  }
  if (r.encoding === 'oversized') return 413;
  if (r.encoding === 'bad-json' || r.encoding === 'proto-json') return 400;
  return undefined;
}

function encode(r: FuzzRequest): { body: Buffer | undefined; contentType: string | undefined } {
  const typeFor = (natural: string) => (r.contentType === undefined ? natural : r.contentType);
  switch (r.encoding) {
    case 'none':
      return { body: undefined, contentType: r.contentType };
    case 'form':
      return {
        body: Buffer.from(qs.stringify(r.body, { arrayFormat: 'indices' })),
        contentType: typeFor('application/x-www-form-urlencoded'),
      };
    case 'json':
      return { body: Buffer.from(JSON.stringify(r.body) ?? 'null'), contentType: typeFor('application/json') };
    case 'raw':
      return { body: Buffer.from(r.raw, 'latin1'), contentType: r.contentType };
    case 'proto-form':
      return {
        body: Buffer.from(`__proto__[admin]=1&constructor[prototype][admin]=1&${qs.stringify(r.body)}`),
        contentType: 'application/x-www-form-urlencoded',
      };
    case 'proto-json':
      return {
        body: Buffer.from(
          `{"__proto__":{"admin":true},"constructor":{"prototype":{"admin":true}},"domain":"${OWNED}"}`,
        ),
        contentType: 'application/json',
      };
    case 'oversized':
      return { body: Buffer.from(`domain=${'x'.repeat(70 * 1024)}`), contentType: 'application/x-www-form-urlencoded' };
    case 'bad-json':
      return { body: Buffer.from(`{"domain": "${OWNED}", "regperiod": 1,,}`), contentType: 'application/json' };
  }
}

interface Reply {
  status: number;
  headers: http.IncomingHttpHeaders;
  body: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 4 });

function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: '127.0.0.1',
        port,
        method,
        path,
        agent,
        headers: { ...headers, ...(body && { 'content-length': String(body.length) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }),
        );
        res.on('error', reject);
      },
    );
    req.setTimeout(15_000, () => req.destroy(new Error(`no answer within 15 s: ${method} ${path}`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** The statuses the OpenAPI document lists per operation, as "post /domains/{domain}/lock". */
const DOCUMENTED = new Map<string, Set<number>>(
  Object.entries(
    buildOpenApiDocument(ROUTES, { version: '0.0.0' }).paths as Record<
      string,
      Record<string, { responses: Record<string, unknown> }>
    >,
  ).flatMap(([path, operations]) =>
    Object.entries(operations).map(([method, op]) => [
      `${method} ${path}`,
      new Set(Object.keys(op.responses).map(Number)),
    ]),
  ),
);

describe('fuzzing every route of the route table', () => {
  let h: Harness;
  let port: number;
  const statuses = new Map<number, number>();
  /** How many answers were checked against an exact expected status, by that status. */
  const exact = new Map<number, number>();
  /** One fuzzing run per route, shared by the test of that route and the summary test. */
  const fuzzed = new Map<Route, Promise<void>>();

  beforeAll(async () => {
    // A registrar deadline short enough that names the sandbox never answers (lost-, slow-) cost little.
    h = await startHarness({ settings: { authMaxFailures: 10_000, registrarTimeoutMs: 2000 } });
    if (!h.server.listening) await new Promise((resolve) => h.server.once('listening', resolve));
    port = (h.server.address() as AddressInfo).port;
    await h.module.services.resellers.create('other@example.com', 'default', 0);
    await givenDomain(h.module, OWNED);
    await givenDomain(h.module, FOREIGN, { owner: 'other@example.com' });
  });
  afterAll(async () => {
    agent.destroy();
    await h.close();
  });

  function headersFor(r: FuzzRequest, contentType: string | undefined): Record<string, string> {
    const good = h.headers();
    const headers: Record<string, string> = {};
    switch (r.auth) {
      case 'good':
        Object.assign(headers, good);
        break;
      case 'none':
        break;
      case 'bad-token':
        Object.assign(headers, { username: good.username, token: `${'A'.repeat(86)}==` });
        break;
      case 'unknown-user':
        Object.assign(headers, { username: 'nobody@example.com', token: good.token });
        break;
      case 'garbage':
        Object.assign(headers, {
          username: r.raw.slice(0, 100).replace(/[^\x20-\x7e]/g, '?'),
          token: r.raw.slice(0, 120).replace(/[^\x20-\x7e]/g, '?'),
        });
        break;
    }
    if (contentType !== undefined) headers['content-type'] = contentType;
    if (r.timestamp !== undefined) headers.timestamp = r.timestamp;
    if (r.requestId !== undefined) headers['x-request-id'] = r.requestId;
    if (r.idempotencyKey !== undefined) headers['idempotency-key'] = r.idempotencyKey;
    return headers;
  }

  const routes = ROUTES.map((r) => [r.method.toUpperCase(), r.path, r] as const);

  /** The operation a request reaches: its own method on the route's path, or the route's when the path lacks that method (a 405). */
  function documentedFor(route: Route, method: string): { operation: string; statuses: Set<number> } {
    const own = `${method.toLowerCase()} ${openApiPath(route.path)}`;
    const operation = DOCUMENTED.has(own) ? own : `${route.method} ${openApiPath(route.path)}`;
    return { operation, statuses: DOCUMENTED.get(operation) ?? new Set() };
  }

  const fuzz = (route: Route) => {
    let run = fuzzed.get(route);
    if (!run) {
      run = fuzzing.run(route);
      fuzzed.set(route, run);
    }
    return run;
  };

  /** Fuzzes one route (the property below, FUZZ_RUNS requests), then checks the server and the ledger. */
  const fuzzing = {
    async run(route: Route): Promise<void> {
      await fc.assert(
        fc.asyncProperty(requestArbitrary(route), async (r) => {
          const path =
            route.path.replace(':domain', r.pathDomain ?? '') +
            (r.query ? `?${qs.stringify(r.query, { arrayFormat: 'indices' })}` : '');
          const encoded = encode(r);
          const { body, encoding } = compress(r, encoded.body);
          const headers = headersFor(r, encoded.contentType);
          if (encoding) headers['content-encoding'] = encoding;
          const reply = await send(port, r.method, path, headers, body);
          statuses.set(reply.status, (statuses.get(reply.status) ?? 0) + 1);
          const where = `${r.method} ${path.slice(0, 200)} -> ${reply.status} ${reply.body.slice(0, 300)}`;

          // No server error; a 502/504 only for what the registrar did.
          expect([500, 501, 503].includes(reply.status) ? where : 'no server error').toBe('no server error');
          if (r.method === 'HEAD' || r.method === 'OPTIONS') return;
          // Node's HTTP server refuses a request line and headers over 16 KiB itself, before the app sees it.
          if (reply.status === 431) return;
          // Documented: the OpenAPI document lists this status for the operation the request reached.
          const documented = documentedFor(route, r.method);
          expect(
            documented.statuses.has(reply.status) ? 'documented' : `undocumented for ${documented.operation}: ${where}`,
          ).toBe('documented');
          // Exact: what is decided before the route's own validation gets its one status.
          const expected = expectedStatus(route, r, { body: encoded.body, contentType: encoded.contentType });
          if (expected !== undefined) {
            expect(`${reply.status} ${where}`).toBe(`${expected} ${where}`);
            exact.set(expected, (exact.get(expected) ?? 0) + 1);
          }
          if (reply.status >= 500) expect(JSON.parse(reply.body).error).toMatch(/registrar|Registrar|sandbox/);
          if (reply.status >= 400) {
            expect(reply.headers['content-type'] ?? where).toMatch(/^application\/json/);
            let parsed: unknown;
            expect(() => {
              parsed = JSON.parse(reply.body);
            }).not.toThrow();
            expect(
              parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed)
                ? Object.keys(parsed as object)
                : where,
            ).toEqual(['error']);
            const message = (parsed as { error: unknown }).error;
            expect(typeof message === 'string' && message.length > 0 ? 'a message' : where).toBe('a message');
            expect(message).not.toMatch(/^curl/i);
            expect(message).not.toMatch(/\n\s+at |\bselect\b.*\bfrom\b|\binsert into\b/i);
            // Driver error codes (ER_DUP_ENTRY, SQLITE_CONSTRAINT) as the drivers spell them: matched
            // without the i flag, an echoed path such as "/domains/ller__de/…" is not one.
            expect(message).not.toMatch(/\bSQLITE_[A-Z]|\bER_[A-Z]{2,}/);
          } else {
            expect(() => JSON.parse(reply.body)).not.toThrow();
          }
        }),
        { numRuns: RUNS, seed: SEED, endOnFailure: true },
      );
      // Still alive and still answering correctly.
      const alive = await send(port, 'GET', '/version', h.headers(), undefined);
      expect(alive.status).toBe(200);
      await expectLedgerInvariant(h.module.knex);
    },
  };

  it.each(routes)(
    '%s %s: every answer well-formed and documented, the server alive and the ledger intact',
    async (_method, _path, route) => {
      await fuzz(route);
    },
  );

  it('reached every kind of answer (the fuzzing went past validation, not just bounced off it)', async () => {
    for (const route of ROUTES) await fuzz(route);
    const seen = [...statuses.keys()].sort();
    if (process.env.FUZZ_VERBOSE)
      process.stderr.write(`statuses: ${JSON.stringify(Object.fromEntries([...statuses].sort()))}\n`);
    for (const status of [200, 400, 401, 404, 409, 413, 415]) expect(seen).toContain(status);
    if (process.env.FUZZ_VERBOSE)
      process.stderr.write(`exact statuses checked: ${JSON.stringify(Object.fromEntries([...exact].sort()))}\n`);
    // The exact-status rules were exercised, each status of them many times.
    for (const status of [400, 401, 413, 415]) expect(exact.get(status) ?? 0).toBeGreaterThan(5);
  }, 600_000); // alone (-t), it fuzzes every route itself
});

/** A valid value per field, so that a request is refused for the one field under test alone. */
const VALID: Record<string, unknown> = {
  domain: OWNED,
  regperiod: '1',
  nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
  contacts: { Registrant: WHMCS_REGISTRANT },
  addons: { idprotection: '1' },
  eppcode: 'EPP-123',
  searchTerm: 'shop',
  tldsToInclude: ['.com'],
  lockstatus: 'locked',
  status: '1',
  nameserver: `ns1.${OWNED}`,
  ipaddress: '192.0.2.1',
  currentipaddress: '192.0.2.1',
  newipaddress: '192.0.2.2',
  transfertag: 'OTHER',
  contactdetails: { Registrant: WHMCS_REGISTRANT },
  ns1: 'ns1.example.net',
  ns2: 'ns2.example.net',
  prefix: ['info'],
  forwardto: ['me@example.net'],
  dnsrecords: [{ hostname: '@', type: 'A', address: '192.0.2.1', priority: 'N/A' }],
};

type JsonSchema = {
  type?: string;
  properties?: Record<string, JsonSchema>;
  additionalProperties?: JsonSchema | boolean;
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  required?: string[];
};

/**
 * Every place a route's OpenAPI input schema expects one text value, as a path of keys from the
 * body (`['lockstatus']`, `['contacts', 'Registrant', 'firstname']`, `['nameservers', 'ns1']`):
 * top-level fields, and the leaves of the objects and lists it describes (alternatives included).
 */
function scalarPaths(schema: JsonSchema, prefix: string[] = [], depth = 0): string[][] {
  if (depth > 4) return [];
  if (schema.type === 'string' && !schema.anyOf) return prefix.length > 0 ? [prefix] : [];
  const paths: string[][] = [];
  // A field that may be a list or an object (tldsToInclude, prefix) is not a scalar itself; its leaves are.
  for (const alternative of schema.anyOf ?? [])
    if (alternative.type !== 'string') paths.push(...scalarPaths(alternative, prefix, depth + 1));
  for (const [key, property] of Object.entries(schema.properties ?? {}))
    paths.push(...scalarPaths(property, [...prefix, key], depth + 1));
  if (typeof schema.additionalProperties === 'object') {
    // A sample key: a contact field under a role, a role under contacts, an index elsewhere.
    const contacts = prefix[0] === 'contacts' || prefix[0] === 'contactdetails';
    const key = contacts ? (prefix.length >= 2 ? 'firstname' : 'Registrant') : '1';
    paths.push(...scalarPaths(schema.additionalProperties, [...prefix, key], depth + 1));
  }
  if (schema.items) paths.push(...scalarPaths(schema.items, [...prefix, '0'], depth + 1));
  const seen = new Set<string>();
  return paths.filter((p) => !seen.has(p.join('.')) && seen.add(p.join('.')));
}

/** The route's input schema as the OpenAPI document gives it: the form body of a POST, the query of a GET. */
function inputSchema(route: Route): JsonSchema | undefined {
  const operation = (
    buildOpenApiDocument(ROUTES, { version: '0.0.0' }).paths as Record<string, Record<string, unknown>>
  )[openApiPath(route.path)]?.[route.method] as
    | {
        requestBody?: { content: Record<string, { schema: JsonSchema }> };
        parameters?: Array<{ in: string; name: string; schema: JsonSchema; required?: boolean }>;
      }
    | undefined;
  const body = operation?.requestBody?.content['application/x-www-form-urlencoded']?.schema;
  if (body) return body;
  const query = (operation?.parameters ?? []).filter((p) => p.in === 'query');
  if (query.length === 0) return undefined;
  return {
    type: 'object',
    properties: Object.fromEntries(query.map((p) => [p.name, p.schema])),
    required: query.filter((p) => p.required).map((p) => p.name),
  };
}

/** `body` with the value at `path` replaced (objects on the way made as needed). */
function withValueAt(body: Record<string, unknown>, path: readonly string[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    at[key] = next !== null && typeof next === 'object' && !Array.isArray(next) ? next : {};
    at = at[key] as Record<string, unknown>;
  }
  at[path[path.length - 1]!] = value;
  return copy;
}

describe('a list or an object where one value is expected is a 400 naming the field, on every route', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness({ settings: { authMaxFailures: 10_000 } });
    await givenDomain(h.module, OWNED);
  });
  afterAll(async () => {
    await h.close();
  });

  const cases = ROUTES.flatMap((route) => {
    const schema = inputSchema(route);
    if (!schema) return [];
    return scalarPaths(schema).map(
      (path) => [route.method.toUpperCase(), route.path, path.join('.'), route, path, schema] as const,
    );
  });

  it('finds scalar fields on every route that takes input', () => {
    const routesWithInput = ROUTES.filter((r) => inputSchema(r) !== undefined);
    expect(routesWithInput.length).toBeGreaterThan(15);
    for (const route of routesWithInput) expect(cases.some(([, path]) => path === route.path)).toBe(true);
  });

  it.each(cases)('%s %s: %s', async (_method, _path, _field, route, path, schema) => {
    // Every other field valid: the required ones and those on the way to the field under test.
    const base: Record<string, unknown> = {};
    for (const key of [...(schema.required ?? []), path[0]!])
      if (key !== path[0] || path.length > 1) base[key] = VALID[key] ?? 'x';
    for (const bad of [['x', 'y'], { a: 'x' }]) {
      const body = withValueAt(base, path, bad);
      const target = route.path.replace(':domain', OWNED);
      const encoded = qs.stringify(body, { arrayFormat: 'indices' });
      const res =
        route.method === 'get'
          ? await h.http.get(`${target}?${encoded}`).set(h.headers())
          : await h.http.post(target).set(h.headers()).type('form').send(encoded);
      // The message names the field: its own name, or the list's for an element of a list.
      const last = path[path.length - 1]!;
      const field = /^\d+$/.test(last) ? path[0]! : last;
      expect({ status: res.status, body: JSON.stringify(res.body) }).toEqual({
        status: 400,
        body: expect.stringContaining(field),
      });
    }
  });
});
