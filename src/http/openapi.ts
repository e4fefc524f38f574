import { z } from 'zod';
import type { Route } from './route-table';
import { ErrorReply } from './wire/reply-schemas';

type JsonSchema = Record<string, unknown>;

export interface OpenApiOptions {
  readonly title?: string;
  readonly version: string;
  /** The drop-in base path the routes are also served under, listed as a second server. */
  readonly basePath?: string;
  /** Where the host mounts the API (`createHttpApi`'s prefix), so that `servers` name the real paths. */
  readonly prefix?: string;
}

/** What each error status means (docs/api.md#errors-and-status-codes). */
const ERROR_STATUSES: Record<number, string> = {
  400: 'Validation error (a field missing, malformed or sent twice, a body that cannot be parsed or decoded), or a business rule the client can fix (TLD not offered, period not priced, insufficient credit, capability missing)',
  401: 'Authentication failed: missing or wrong headers, unknown user, bad token, stale timestamp, suspended reseller',
  403: "The client address is not on the reseller's IP allow-list",
  404: 'No operation at this path: a path segment ({domain}, {id}) is empty or not one segment; on an order id, no such order of the reseller',
  405: 'This path does not serve that method; the Allow header lists the ones it does',
  409: "The domain is not in the reseller's account, an order for it is in progress, or the Idempotency-Key's first request is still running",
  413: 'The body is larger than 64 KiB',
  415: 'The body is neither a form nor JSON, or its Content-Encoding is not gzip, deflate or br',
  422: 'The Idempotency-Key was used before with a different request',
  429: 'Too many failed authentications; see Retry-After',
  500: 'Unexpected server error; the message carries the request id',
  502: 'The registrar failed; the message names its error',
  503: "The database is not answering: try again after Retry-After seconds; the registrar's plugin failed to load and is disabled (the message names it); on /readyz, not ready",
  504: 'The registrar did not answer in time',
};

/** The error statuses a route can answer, from what it is: who may call it, whether it names a domain, whether it orders. */
export function documentedErrors(r: Route): number[] {
  // Every route reads and parses a body, and its path answers 405 to other methods.
  const statuses = [400, 405, 413, 415, 500];
  if (r.access === 'reseller') statuses.push(401, 403, 429);
  if (r.path.includes(':')) statuses.push(404);
  if (r.path.includes(':domain') || r.path.startsWith('/order/domains')) statuses.push(409, 502, 503, 504);
  if (r.idempotent) statuses.push(422);
  if (r.access === 'reseller' || r.path === '/readyz') statuses.push(503);
  return statuses.sort((a, b) => a - b);
}

/** The headers a route reads besides the credentials, as OpenAPI header parameters. */
function headerParameters(r: Route): JsonSchema[] {
  const headers: JsonSchema[] = [];
  if (r.access === 'reseller')
    headers.push({
      name: 'timestamp',
      in: 'header',
      required: false,
      schema: { type: 'string', pattern: '^[0-9]{1,13}$', examples: ['1795435200'] },
      description:
        'Unix time in seconds (13 digits are read as milliseconds). When sent, the token must be built for the UTC hour of this time, and a time more than 60 seconds from the server clock is refused with 401. Without it, the current hour (and the neighbouring one within 60 seconds of a boundary) is accepted.',
    });
  if (r.idempotent)
    headers.push({
      name: 'Idempotency-Key',
      in: 'header',
      required: false,
      schema: { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x21-\\x7e]+$' },
      description:
        'Makes a retry safe: the same key and request within IDEMPOTENCY_TTL_HOURS replay the first answer without a second charge; the same key with another request is a 422, and while the first request runs a 409. Scoped per reseller.',
    });
  return headers;
}

/** `/domains/:domain/lock` → `/domains/{domain}/lock`. */
export const openApiPath = (path: string) => path.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
const pathParams = (path: string) => [...path.matchAll(/:([A-Za-z0-9_]+)/g)].map((m) => m[1]!);

function jsonSchema(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    io,
    unrepresentable: 'any',
    target: 'draft-2020-12',
  }) as JsonSchema;
  return rest;
}

/**
 * The body without the path's parameters as required fields: a GET leaves them out, a POST keeps
 * them as optional repeats (docs/api.md#the-domain-in-a-path: the body may repeat the path's domain; if it differs, 400).
 */
function withoutPathParams(schema: JsonSchema, names: readonly string[], keepAsRepeats: boolean): JsonSchema {
  if (names.length === 0 || typeof schema.properties !== 'object' || schema.properties === null) return schema;
  const properties = Object.fromEntries(
    Object.entries(schema.properties as JsonSchema).flatMap(([k, v]) => {
      if (!names.includes(k)) return [[k, v]];
      return keepAsRepeats
        ? [
            [
              k,
              {
                ...(v as JsonSchema),
                description: `Optional: repeats the ${k} in the path; a different value is refused`,
              },
            ],
          ]
        : [];
    }),
  );
  const required = Array.isArray(schema.required)
    ? (schema.required as string[]).filter((k) => !names.includes(k))
    : [];
  const { required: _required, ...rest } = schema;
  return { ...rest, properties, ...(required.length > 0 ? { required } : {}) };
}

const hasProperties = (schema: JsonSchema) =>
  typeof schema.properties === 'object' && schema.properties !== null && Object.keys(schema.properties).length > 0;

const tagOf = (r: Route) =>
  r.tag ??
  (r.access === 'public'
    ? 'Operations'
    : r.path.startsWith('/domains/:')
      ? 'Domains'
      : r.path.startsWith('/domains/lookup')
        ? 'Search'
        : r.path.startsWith('/order/domains')
          ? 'Orders'
          : 'Account and catalogue');

function operation(r: Route): JsonSchema {
  const inPath = pathParams(r.path);
  const input = withoutPathParams(jsonSchema(r.input, 'input'), inPath, r.method === 'post');
  const parameters: JsonSchema[] = inPath.map(
    (name): JsonSchema => ({
      name,
      in: 'path',
      required: true,
      schema: { type: 'string' },
      ...(name === 'domain'
        ? { description: 'The domain name: Unicode or punycode, any case, raw or percent-encoded' }
        : {}),
    }),
  );
  parameters.push(...headerParameters(r));
  let requestBody: JsonSchema | undefined;
  if (r.method === 'get') {
    const required = new Set(Array.isArray(input.required) ? (input.required as string[]) : []);
    for (const [name, schema] of Object.entries((input.properties ?? {}) as Record<string, JsonSchema>)) {
      parameters.push({
        name,
        in: 'query',
        required: required.has(name),
        schema,
        ...(schema.description ? { description: schema.description } : {}),
      });
    }
  } else if (hasProperties(input) && Object.keys(input.properties as object).some((k) => !inPath.includes(k))) {
    requestBody = {
      required: Array.isArray(input.required) && input.required.length > 0,
      description:
        'A form with PHP-bracket nesting (`nameservers[ns1]=…`, `dnsrecords[0][hostname]=…`), or the same fields as JSON',
      content: { 'application/x-www-form-urlencoded': { schema: input }, 'application/json': { schema: input } },
    };
  }
  const responses: JsonSchema = {
    200: {
      description: 'Success',
      ...(r.replyHeaders
        ? {
            headers: Object.fromEntries(
              Object.entries(r.replyHeaders).map(([name, description]) => [
                name,
                { description, schema: { type: 'string' } },
              ]),
            ),
          }
        : {}),
      content: {
        [r.path === '/metrics' ? 'text/plain' : 'application/json']: { schema: jsonSchema(r.output, 'output') },
      },
    },
  };
  for (const status of documentedErrors(r)) {
    responses[status] = {
      description: ERROR_STATUSES[status] ?? 'Error',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    };
  }
  return {
    operationId: `${r.method}${r.path
      .replace(/[:{}]/g, '')
      .split(/[/.-]/)
      .filter(Boolean)
      .map((w) => w[0]!.toUpperCase() + w.slice(1))
      .join('')}`,
    summary: r.summary,
    tags: [tagOf(r)],
    ...(r.access === 'reseller' ? {} : { security: [] }),
    ...(parameters.length > 0 ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses,
  };
}

/**
 * The OpenAPI 3.1 document of the routes, generated from the route table: each route's zod
 * `input` is its request schema (the same one that validates requests) and its `output` the
 * 200 reply's schema. Nothing is written by hand twice.
 */
export function buildOpenApiDocument(routes: readonly Route[], options: OpenApiOptions): JsonSchema {
  const paths: Record<string, Record<string, JsonSchema>> = {};
  for (const r of routes) {
    const path = openApiPath(r.path);
    paths[path] = { ...paths[path], [r.method]: operation(r) };
  }
  const prefix = (options.prefix ?? '').replace(/\/+$/, '');
  const servers: JsonSchema[] = [
    prefix
      ? { url: prefix, description: 'Where the host mounts the API' }
      : { url: '/', description: 'The API at the root' },
  ];
  if (options.basePath)
    servers.push({
      url: `${prefix}${options.basePath.replace(/\/+$/, '')}`,
      description: 'The drop-in path deployed clients use',
    });
  return {
    openapi: '3.1.0',
    info: {
      title: options.title ?? 'Domain reseller API',
      version: options.version,
      description:
        'Domain reseller HTTP API (interface 2.4.1). Bodies are forms with PHP-bracket nesting or JSON; replies are JSON; every error is {"error": "…"}.',
    },
    servers,
    security: [{ username: [], token: [] }],
    tags: ['Account and catalogue', 'Search', 'Orders', 'Domains', 'Account lists', 'Operations'].map((name) => ({
      name,
    })),
    paths,
    components: {
      securitySchemes: {
        username: { type: 'apiKey', in: 'header', name: 'username', description: "The reseller's email address" },
        token: {
          type: 'apiKey',
          in: 'header',
          name: 'token',
          description:
            'base64( lowercase hex( HMAC-SHA256(key = "<email>:<UTC yy-mm-dd HH>", message = API key) ) ), 88 characters. An optional `timestamp` header (Unix seconds) names the hour.',
        },
      },
      schemas: { Error: jsonSchema(ErrorReply, 'output') },
    },
  };
}
