import Ajv2020 from 'ajv/dist/2020';
import { Container } from 'inversify';
import Koa from 'koa';
import request, { type Response } from 'supertest';
import { z } from 'zod';
import { createHttpApi, mountedRoutes } from '../../src/http/http-api';
import { buildOpenApiDocument, openApiPath } from '../../src/http/openapi';
import { ROUTES } from '../../src/http/routes';
import { givenDomain } from '../support/domains';
import { recordingLogger } from '../support/fakes';
import { startHarness, type Harness } from '../support/harness';
import { REGISTRANT as PLATFORM_REGISTRANT, form } from '../support/wire';

type Doc = {
  openapi: string;
  paths: Record<
    string,
    Record<
      string,
      { responses: Record<string, { content?: Record<string, { schema: object }> }>; security?: unknown[] }
    >
  >;
  components: { schemas: Record<string, object> };
};

const REGISTRANT = {
  'First Name': 'Ada',
  'Last Name': 'Lovelace',
  'Email Address': 'ada@example.com',
  'Address 1': '1 Analytical Row',
  City: 'London',
  Postcode: 'N1 1AA',
  Country: 'gb',
  'Phone Number': '+44.2000000000',
};

describe('the OpenAPI document', () => {
  let h: Harness;
  let doc: Doc;
  let ajv: Ajv2020;
  /** Every operation the calls below answered, as "get /domains/{domain}/lock". */
  const exercised = new Set<string>();

  beforeAll(async () => {
    h = await startHarness();
    doc = (await h.http.get('/openapi.json')).body;
    ajv = new Ajv2020({ strict: false, allErrors: true });
    ajv.addSchema({ $id: 'components.json', ...doc.components.schemas }, 'components.json');
  });
  afterAll(async () => {
    await h.close();
  });

  /** Checks a real reply against the document's schema for its route, method and status. */
  function conforms(res: Response, method: 'get' | 'post', path: string): void {
    const operation = doc.paths[path]?.[method];
    if (!operation) throw new Error(`the document has no ${method} ${path}`);
    const response = operation.responses[String(res.status)];
    if (!response) throw new Error(`${method} ${path} answered ${res.status}, which the document does not list`);
    const [type, media] = Object.entries(response.content ?? {})[0]!;
    expect(res.headers['content-type']).toContain(type);
    // Error replies point at components; the validator gets them under their own id.
    const schema = JSON.parse(JSON.stringify(media.schema).replace(/"#\/components\/schemas\//g, '"components.json#/'));
    const body = type === 'text/plain' ? res.text : res.body;
    const valid = ajv.validate(schema, body);
    if (!valid)
      throw new Error(`${method} ${path} ${res.status}: ${ajv.errorsText()} in ${JSON.stringify(body).slice(0, 300)}`);
    exercised.add(`${method} ${path}`);
  }

  it('is served without authentication as OpenAPI 3.1', async () => {
    const res = await h.http.get('/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      openapi: '3.1.0',
      info: { title: 'Domain reseller API', version: expect.any(String) },
    });
    expect(res.body.components.securitySchemes).toHaveProperty('token');
  });

  it("lists exactly the router's routes: every path and method, nothing more", async () => {
    const inRouter = mountedRoutes(h.module.middleware({ ownAllPaths: true, metrics: true })).map(
      (r) => `${r.method.toLowerCase()} ${openApiPath(r.path)}`,
    );
    const inDocument = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m} ${path}`),
    );
    expect([...new Set(inDocument)].sort()).toEqual([...new Set(inRouter)].sort());
    expect(inDocument.length).toBeGreaterThanOrEqual(31);
  });

  it('asks for the token on reseller routes and for nothing on the operational ones', () => {
    expect(doc.paths['/healthz']!.get!.security).toEqual([]);
    expect(doc.paths['/domains/{domain}/lock']!.get!.security).toBeUndefined();
    expect((doc as unknown as { security: unknown }).security).toEqual([{ username: [], token: [] }]);
  });

  it('describes the real replies of every operation, errors included', async () => {
    const get = (path: string, query: Record<string, unknown> = {}) =>
      h.http.get(`${path}${Object.keys(query).length ? `?${form(query)}` : ''}`).set(h.headers());
    const post = (path: string, body: Record<string, unknown> = {}) =>
      h.http.post(path).set(h.headers()).type('form').send(form(body));
    for (const name of ['doc.com', 'doc-delete.com', 'doc-release.com']) await givenDomain(h.module, name);
    await givenDomain(h.module, 'doc-transfer.com', {
      atRegistrar: false,
      status: 'Pending Transfer',
      expiryDate: null,
    });

    conforms(await h.http.get('/healthz'), 'get', '/healthz');
    conforms(await h.http.get('/readyz'), 'get', '/readyz');
    conforms(await h.http.get('/openapi.json'), 'get', '/openapi.json');
    conforms(await h.http.get('/metrics'), 'get', '/metrics');
    conforms(await get('/version'), 'get', '/version');
    conforms(await get('/billing/credits'), 'get', '/billing/credits');
    conforms(await get('/tlds'), 'get', '/tlds');
    conforms(await get('/tlds/pricing'), 'get', '/tlds/pricing');
    for (const action of ['register', 'renew', 'transfer'])
      conforms(
        await get(`/order/pricing/domains/${action}`, { domain: 'new.com' }),
        'get',
        `/order/pricing/domains/${action}`,
      );
    conforms(
      await post('/domains/lookup/suggestions', { searchTerm: 'example', tldsToInclude: ['.com', '.net'] }),
      'post',
      '/domains/lookup/suggestions',
    );
    conforms(await post('/domains/lookup', { searchTerm: 'premium-example' }), 'post', '/domains/lookup');

    const d = '/domains/{domain}';
    conforms(await get('/domains/doc.com/information'), 'get', `${d}/information`);
    conforms(
      await post('/domains/doc.com/dns', {
        dnsrecords: [
          { hostname: 'www', type: 'A', address: '192.0.2.1', priority: 'N/A' },
          { hostname: '@', type: 'MX', address: 'mail.doc.com', priority: '10' },
        ],
      }),
      'post',
      `${d}/dns`,
    );
    conforms(await get('/domains/doc.com/dns'), 'get', `${d}/dns`);
    conforms(await post('/domains/doc.com/sync'), 'post', `${d}/sync`);
    conforms(await post('/domains/doc-transfer.com/transfersync'), 'post', `${d}/transfersync`);
    conforms(
      await post('/domains/doc.com/nameservers', { ns1: 'ns1.example.net', ns2: 'ns2.example.net' }),
      'post',
      `${d}/nameservers`,
    );
    conforms(await get('/domains/doc.com/nameservers'), 'get', `${d}/nameservers`);
    conforms(
      await post('/domains/doc.com/nameservers/register', { nameserver: 'ns1.doc.com', ipaddress: '192.0.2.1' }),
      'post',
      `${d}/nameservers/register`,
    );
    conforms(
      await post('/domains/doc.com/nameservers/modify', {
        nameserver: 'ns1.doc.com',
        currentipaddress: '192.0.2.1',
        newipaddress: '192.0.2.2',
      }),
      'post',
      `${d}/nameservers/modify`,
    );
    conforms(
      await post('/domains/doc.com/nameservers/delete', { nameserver: 'ns1.doc.com' }),
      'post',
      `${d}/nameservers/delete`,
    );
    conforms(await post('/domains/doc.com/lock', { lockstatus: 'locked' }), 'post', `${d}/lock`);
    conforms(await get('/domains/doc.com/lock'), 'get', `${d}/lock`);
    conforms(await post('/domains/doc.com/protectid', { status: '1' }), 'post', `${d}/protectid`);
    conforms(await get('/domains/doc.com/eppcode'), 'get', `${d}/eppcode`);
    conforms(
      await post('/domains/doc.com/contact', { contactdetails: { Registrant: REGISTRANT } }),
      'post',
      `${d}/contact`,
    );
    conforms(await get('/domains/doc.com/contact'), 'get', `${d}/contact`);
    conforms(
      await post('/domains/doc.com/email', { prefix: ['info'], forwardto: ['me@example.net'] }),
      'post',
      `${d}/email`,
    );
    conforms(await get('/domains/doc.com/email'), 'get', `${d}/email`);
    conforms(await post('/domains/doc-release.com/release', { transfertag: 'NEW-TAG' }), 'post', `${d}/release`);
    conforms(await post('/domains/doc-delete.com/delete'), 'post', `${d}/delete`);

    const newDomain = {
      regperiod: '1',
      nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
      contacts: { registrant: PLATFORM_REGISTRANT },
    };
    conforms(
      await post('/order/domains/register', { domain: 'doc-order.com', ...newDomain }),
      'post',
      '/order/domains/register',
    );
    conforms(
      await post('/order/domains/renew', { domain: 'doc-order.com', regperiod: '1' }),
      'post',
      '/order/domains/renew',
    );
    conforms(
      await post('/order/domains/transfer', { domain: 'doc-incoming.com', eppcode: 'EPP-1', ...newDomain }),
      'post',
      '/order/domains/transfer',
    );
    conforms(
      await post('/order/domains/register', { domain: 'taken-doc.com', ...newDomain }),
      'post',
      '/order/domains/register',
    );

    conforms(await get('/account/domains', { status: 'Active', limit: '2' }), 'get', '/account/domains');
    const orders = await get('/account/orders', { limit: '1' });
    conforms(orders, 'get', '/account/orders');
    conforms(await get(`/account/orders/${orders.body.orders[0].id}`), 'get', '/account/orders/{id}');
    conforms(await get('/account/orders/01JZZZZZZZZZZZZZZZZZZZZZZZ'), 'get', '/account/orders/{id}');
    conforms(await get('/account/statement', { from: '2026-11-01' }), 'get', '/account/statement');

    // Errors: the same schema everywhere.
    conforms(
      await h.http.get('/billing/credits').set({ username: h.reseller.email, token: 'x'.repeat(88) }),
      'get',
      '/billing/credits',
    );
    conforms(await get('/domains/not-mine.com/information'), 'get', `${d}/information`);
    conforms(await post('/domains/doc.com/protectid', { status: 'maybe' }), 'post', `${d}/protectid`);

    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((m) => `${m} ${path}`),
    );
    expect(documented.filter((op) => !exercised.has(op))).toEqual([]);
  });

  it('documents the timestamp header on every reseller operation and Idempotency-Key on the paid orders only', () => {
    type Parameter = { name: string; in: string; required: boolean };
    const headersOf = (path: string, method: string) =>
      ((doc.paths[path]![method] as unknown as { parameters?: Parameter[] }).parameters ?? [])
        .filter((p) => p.in === 'header')
        .map((p) => `${p.name}${p.required ? '' : '?'}`);
    expect(headersOf('/billing/credits', 'get')).toEqual(['timestamp?']);
    expect(headersOf('/domains/{domain}/lock', 'post')).toEqual(['timestamp?']);
    for (const action of ['register', 'renew', 'transfer'])
      expect(headersOf(`/order/domains/${action}`, 'post')).toEqual(['timestamp?', 'Idempotency-Key?']);
    expect(headersOf('/healthz', 'get')).toEqual([]);
  });

  it("documents the Order-Id and Order-Status reply headers of the paid orders' 200, and on no other operation", () => {
    const replyHeadersOf = (path: string, method: string) =>
      Object.keys(
        ((doc.paths[path]![method]!.responses as Record<string, { headers?: object }>)['200']!.headers ?? {}) as object,
      );
    for (const action of ['register', 'renew', 'transfer'])
      expect(replyHeadersOf(`/order/domains/${action}`, 'post')).toEqual(['Order-Id', 'Order-Status']);
    expect(replyHeadersOf('/domains/{domain}/lock', 'post')).toEqual([]);
  });

  it('lists 405 on every operation and 422 only where an Idempotency-Key is read', () => {
    const statusesOf = (path: string, method: string) => Object.keys(doc.paths[path]![method]!.responses);
    for (const [path, methods] of Object.entries(doc.paths))
      for (const method of Object.keys(methods)) expect(statusesOf(path, method)).toContain('405');
    expect(statusesOf('/order/domains/register', 'post')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '405',
      '409',
      '413',
      '415',
      '422',
      '429',
      '500',
      '502',
      '503',
      '504',
    ]);
    expect(statusesOf('/domains/{domain}/lock', 'post')).not.toContain('422');
    expect(statusesOf('/billing/credits', 'get')).toEqual([
      '200',
      '400',
      '401',
      '403',
      '405',
      '413',
      '415',
      '429',
      '500',
      '503',
    ]);
  });

  it('types the nested order fields instead of leaving them open', () => {
    const body = (path: string) =>
      (
        doc.paths[path]!.post as unknown as {
          requestBody: { content: Record<string, { schema: { properties: Record<string, Record<string, unknown>> } }> };
        }
      ).requestBody.content['application/x-www-form-urlencoded']!.schema.properties;
    const register = body('/order/domains/register');
    expect(register.nameservers).toMatchObject({
      anyOf: [{ type: 'object', properties: { ns1: { type: 'string' } } }, { type: 'array' }],
    });
    expect(register.contacts).toMatchObject({
      type: 'object',
      properties: { Registrant: { type: 'object', additionalProperties: { type: 'string' } } },
    });
    expect(register.addons).toMatchObject({ type: 'object', properties: { idprotection: { type: 'string' } } });
    expect(register.originalvars).toMatchObject({ type: 'object' });
    expect(body('/order/domains/renew').addons).toEqual(register.addons);
    for (const field of ['nameservers', 'contacts', 'addons', 'originalvars'])
      expect(Object.keys(register[field]!)).not.toEqual([]);
  });

  it('names the prefix the host mounts the API under in servers', async () => {
    const app = new Koa();
    app.use(h.module.middleware({ prefix: '/reseller-api' }));
    const res = await request(app.callback()).get('/reseller-api/openapi.json');
    expect(res.status).toBe(200);
    expect(res.body.servers).toEqual([{ url: '/reseller-api', description: 'Where the host mounts the API' }]);
    expect((doc as unknown as { servers: unknown }).servers).toEqual([
      { url: '/', description: 'The API at the root' },
    ]);
    expect(buildOpenApiDocument(ROUTES, { version: '1', prefix: '/api/', basePath: '/modules/x.php' }).servers).toEqual(
      [
        { url: '/api', description: 'Where the host mounts the API' },
        { url: '/api/modules/x.php', description: 'The drop-in path deployed clients use' },
      ],
    );
  });

  it('would catch a reply that strays from its schema: checkReplies (on in every HTTP test) turns it into a 500', async () => {
    const stray = {
      method: 'get' as const,
      path: '/stray',
      access: 'public' as const,
      summary: 'a reply with a key its schema lacks',
      input: z.object({}),
      output: z.strictObject({ ok: z.literal(true) }),
      handler: async () => ({ ok: true, extra: 1 }),
    };
    const app = new Koa();
    const logger = recordingLogger();
    app.use(createHttpApi({ container: new Container(), routes: [stray], logger, checkReplies: true }));
    const res = await request(app.callback()).get('/stray');
    expect(res.status).toBe(500);
    expect(logger.entries.find((e) => e.level === 'error')?.obj).toMatchObject({
      err: { message: expect.stringContaining('does not match its output schema') },
    });
  });
});
