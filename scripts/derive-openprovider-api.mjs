#!/usr/bin/env node
/**
 * Derives plugins/openprovider/src/vendor/openprovider-api.generated.ts from Openprovider's
 * published Swagger 2.0 document (the vendor states no licence for it, so the repository carries
 * only what is derived: structure, no prose or examples).
 *
 *   node scripts/derive-openprovider-api.mjs /path/to/openprovider/swagger.json
 *
 * The document is openprovider/api-documentation, branch v1beta (the team reference copy is
 * ../shared/registrar-specs/openprovider/swagger.json, commit 39f14558523e1b0bdd2a07df24325bad85b91fd3).
 * Only the operations the plugin uses are derived, with every definition they reach.
 */
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const source = process.argv[2];
if (!source) {
  console.error('usage: node scripts/derive-openprovider-api.mjs <swagger.json>');
  process.exit(2);
}
const raw = readFileSync(source);
const doc = JSON.parse(raw.toString('utf8'));
const sha256 = createHash('sha256').update(raw).digest('hex');

/** The operations the plugin sends, by the document's operationId. */
const OPERATIONS = [
  'Login',
  'CheckDomain',
  'SuggestNameDomain',
  'GetPrice',
  'ListDomains',
  'CreateDomain',
  'GetDomain',
  'UpdateDomain',
  'DeleteDomain',
  'RenewDomain',
  'RestoreDomain',
  'TransferDomain',
  'GetAuthCode',
  'ResetAuthCode',
  'CreateCustomer',
  'GetCustomer',
  'CreateNameserver',
  'GetNameserver',
  'UpdateNameserver',
  'DeleteNameserver',
  'CreateZone',
  'GetZone',
  'UpdateZone',
  'ListTlds',
];

/**
 * The document marks no body field required. Its own guides (the "Quick Start" and
 * "Authentication" sections of the same document) name the fields a request cannot do without;
 * those are required here, each with the section that says so.
 */
const REQUIRED_BY_GUIDE = {
  authLoginRequest: ['username', 'password'], // descAuthentication: the login example
  customerCreateCustomerRequest: ['name', 'address', 'phone', 'email'], // descCustomerQuickstart: "Required."
  domainCheckDomainRequest: ['domains'], // descDomainQuickstart: "list of domains to check"
  domainDomain: ['name', 'extension'], // descDomainQuickstart: `{"extension": "com","name": "example"}`
  zoneDomain: ['name', 'extension'],
  domainCreateDomainRequest: ['domain', 'owner_handle', 'period'], // descDomainQuickstart: Register a domain
  domainTransferDomainRequest: ['domain', 'owner_handle'], // descDomainQuickstart: Transfer a domain
  domainSuggestNameDomainRequest: ['name'],
  nameserverNameserver: ['name'],
  zoneCreateZoneRequest: ['domain', 'type'], // descDNSQuickstart: create a zone
  zoneRecord: ['name', 'type', 'value'],
};

const operations = [];
for (const [route, methods] of Object.entries(doc.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    if (!OPERATIONS.includes(op.operationId)) continue;
    const params = op.parameters ?? [];
    const body = params.find((p) => p.in === 'body');
    operations.push({
      id: op.operationId,
      method: method.toUpperCase(),
      path: route,
      pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, type: p.type })),
      query: Object.fromEntries(
        params
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, p.type === 'array' ? { type: 'array', items: p.items.type } : { type: p.type }]),
      ),
      body: body ? refName(body.schema.$ref) : null,
      response: refName(op.responses['200'].schema.$ref),
      error: refName(op.responses.default.schema.$ref),
    });
  }
}
const missing = OPERATIONS.filter((id) => !operations.some((o) => o.id === id));
if (missing.length) throw new Error(`operations not in the document: ${missing.join(', ')}`);
operations.sort((a, b) => OPERATIONS.indexOf(a.id) - OPERATIONS.indexOf(b.id));

// Every definition the operations reach.
const reached = new Set();
const visit = (name) => {
  if (reached.has(name)) return;
  if (!doc.definitions[name]) throw new Error(`definition ${name} is not in the document`);
  reached.add(name);
  JSON.stringify(doc.definitions[name], (key, value) => {
    if (key === '$ref') visit(refName(value));
    return value;
  });
};
for (const o of operations) for (const name of [o.body, o.response, o.error]) if (name) visit(name);
const names = [...reached].sort();

/** JSON Schema (draft-07) of a definition: structure only; unknown properties are refused, as the vendor does. */
function schemaOf(def, name) {
  const out = {};
  if (def.$ref) return { $ref: `#/definitions/${refName(def.$ref)}` };
  if (def.type) out.type = def.type;
  if (def.enum) out.enum = def.enum;
  if (def.format === 'int32') Object.assign(out, { minimum: -2147483648, maximum: 2147483647 });
  if (def.type === 'array') out.items = schemaOf(def.items ?? {});
  if (def.type === 'object' || def.properties) {
    out.type = 'object';
    out.properties = Object.fromEntries(Object.entries(def.properties ?? {}).map(([k, v]) => [k, schemaOf(v)]));
    out.additionalProperties = false;
    const required = name ? REQUIRED_BY_GUIDE[name] : undefined;
    if (required) out.required = required;
  }
  return out;
}
for (const name of Object.keys(REQUIRED_BY_GUIDE))
  if (!reached.has(name)) throw new Error(`REQUIRED_BY_GUIDE names ${name}, which no operation reaches`);

const definitions = Object.fromEntries(names.map((n) => [n, schemaOf(doc.definitions[n], n)]));

/** TypeScript of a schema: every field optional, as the document declares none required (see REQUIRED_BY_GUIDE). */
function typeOf(schema, indent) {
  if (schema.$ref) return pascal(refName(schema.$ref));
  switch (schema.type) {
    case 'string':
      return schema.enum ? schema.enum.map((v) => JSON.stringify(v)).join(' | ') : 'string';
    case 'integer':
    case 'number':
      return 'number';
    case 'boolean':
      return 'boolean';
    case 'array': {
      const item = typeOf(schema.items, indent);
      return /[ |]/.test(item) ? `Array<${item}>` : `${item}[]`;
    }
    case 'object': {
      const pad = '  '.repeat(indent + 1);
      const required = new Set(schema.required ?? []);
      const fields = Object.entries(schema.properties ?? {}).map(
        ([k, v]) => `${pad}${/^[a-z_][a-z0-9_]*$/i.test(k) ? k : JSON.stringify(k)}${required.has(k) ? '' : '?'}: ${typeOf(v, indent + 1)};`,
      );
      return fields.length ? `{\n${fields.join('\n')}\n${'  '.repeat(indent)}}` : 'Record<string, never>';
    }
    default:
      return 'unknown';
  }
}

const types = names.map((n) => `export type ${pascal(n)} = ${typeOf(definitions[n], 0)};`).join('\n\n');
const header = `/**
 * GENERATED by scripts/derive-openprovider-api.mjs; do not edit by hand.
 *
 * Derived from Openprovider's Swagger 2.0 document "${doc.info.title}", version ${doc.info.version}
 * (openprovider/api-documentation, branch v1beta, commit 39f14558523e1b0bdd2a07df24325bad85b91fd3,
 * swagger.json sha256 ${sha256}). Structure only: the vendor states no licence for the document, so
 * no copy of it, its prose or its examples is kept here. Each schema refuses properties the document
 * does not declare; fields the document's own guides call required are required (REQUIRED_BY_GUIDE
 * in the script names where each comes from).
 */
`;
const body = `${header}
/** The base path every operation lives under. */
export const BASE_PATH = '/v1beta';

export interface VendorOperation {
  readonly id: string;
  readonly method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** With path parameters in braces: /v1beta/domains/{id}. */
  readonly path: string;
  readonly pathParams: ReadonlyArray<{ readonly name: string; readonly type: string }>;
  /** Query parameters by name (dotted names are the vendor's: \`domain.name\`). */
  readonly query: Readonly<Record<string, { readonly type: string; readonly items?: string }>>;
  /** The definition the JSON body must satisfy, if the operation takes one. */
  readonly body: string | null;
  /** The definition of the 200 answer. */
  readonly response: string;
  /** The definition of every other answer. */
  readonly error: string;
}

export const OPERATIONS: readonly VendorOperation[] = ${JSON.stringify(operations, null, 2)};

/** JSON Schema (draft-07) definitions, referenced as \`#/definitions/<name>\`. */
export const DEFINITIONS: Readonly<Record<string, object>> = ${JSON.stringify(definitions, null, 2)};

${types}
`;

const target = path.join(
  path.dirname(new URL(import.meta.url).pathname),
  '..',
  'plugins',
  'openprovider',
  'src',
  'vendor',
  'openprovider-api.generated.ts',
);
writeFileSync(target, body);
execFileSync(path.join(path.dirname(new URL(import.meta.url).pathname), '..', 'node_modules', '.bin', 'biome'), ['format', '--write', target], { stdio: 'inherit' });
console.log(`wrote ${path.relative(process.cwd(), target)}: ${operations.length} operations, ${names.length} definitions`);

function refName(ref) {
  return ref.replace('#/definitions/', '');
}
function pascal(name) {
  return name.charAt(0).toUpperCase() + name.slice(1);
}
