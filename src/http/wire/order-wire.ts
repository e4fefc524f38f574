import { z } from 'zod';
import { MAX_PERIOD, MIN_PERIOD } from '../../core/catalogue/catalogue';
import type { RegisterCommand, RenewCommand, TransferCommand } from '../../core/order/order-commands';
import { DomainError } from '../../core/common/errors';
import type { WireValue } from './form-body';
import { toContacts } from './contact-wire';
import { nameserversFromWire } from './nameservers-wire';
import { decodeDomainFields } from './php-serialized';
import { parseAmount } from '../../core/common/money';
import { domainField, optionalText, text, wireBoolean } from './schemas';

const invalid = (message: string) => new DomainError('validation_failed', message);

/** docs/api.md#register-a-domain: an integer 1 to 10 (whether the group prices it is the catalogue's call). */
const regperiod = z
  .string({
    error: (issue) => (issue.input === undefined ? 'regperiod is required' : 'regperiod must be a single whole number'),
  })
  .trim()
  .regex(/^\d{1,2}$/, `regperiod must be a whole number of years from ${MIN_PERIOD} to ${MAX_PERIOD}`)
  .transform(Number)
  .refine(
    (n) => n >= MIN_PERIOD && n <= MAX_PERIOD,
    `regperiod must be a whole number of years from ${MIN_PERIOD} to ${MAX_PERIOD}`,
  );

/**
 * Nested objects arrive as PHP-bracket forms or JSON; their shape is checked by the mappers below,
 * which name the field. `shape` is what the OpenAPI document says of the field (JSON Schema).
 */
const nested = (shape: Record<string, unknown>) => z.custom<WireValue>().optional().meta(shape);

const textValue = { type: 'string' };
const hostName = { type: 'string', description: 'A host name, like ns1.example.net' };
const wireFlag = {
  type: 'string',
  enum: ['true', 'false', '1', '0', 'on', 'off', 'yes', 'no'],
  description: 'A boolean: true/false, 1/0, on/off or yes/no',
};
const contact = {
  type: 'object',
  description:
    'Contact fields by their lower-case names (firstname, lastname, fullname, companyname, email, address1, address2, city, state, postcode, country, phonenumber, tax_id) or the billing platform\'s display names ("First Name", "Email Address", …)',
  additionalProperties: textValue,
  examples: [
    {
      firstname: 'Ada',
      lastname: 'Lovelace',
      email: 'ada@example.com',
      address1: '1 Analytical Way',
      city: 'London',
      postcode: 'N1 1AA',
      country: 'GB',
      phonenumber: '+44.2071234567',
    },
  ],
};

const nameserversField = nested({
  description:
    'nameservers[ns1]=…&nameservers[ns2]=… (ns1 and ns2 required, up to ns5), or positional nameservers[0]=…; empty entries are dropped',
  anyOf: [
    {
      type: 'object',
      properties: { ns1: hostName, ns2: hostName, ns3: hostName, ns4: hostName, ns5: hostName },
      additionalProperties: false,
    },
    { type: 'array', items: hostName, maxItems: 5 },
  ],
});
const contactsField = nested({
  description:
    "Contacts by role: contacts[Registrant][firstname]=…; Registrant is required unless the reseller's group has a default contact",
  type: 'object',
  properties: {
    Registrant: contact,
    Admin: contact,
    Tech: { ...contact, description: 'Also accepted as Technical' },
    Billing: contact,
  },
  additionalProperties: false,
});
const addonsField = nested({
  description: 'Addons to enable: addons[idprotection]=1; each may carry a yearly price per group',
  type: 'object',
  properties: { dnsmanagement: wireFlag, emailforwarding: wireFlag, idprotection: wireFlag },
  additionalProperties: false,
});
const originalvarsField = nested({
  description:
    "The billing platform's original parameters (any nesting): stored as received, at most 16 KiB as JSON, never interpreted",
  type: 'object',
  additionalProperties: true,
});

const idnLanguage = optionalText('idnLanguage')
  .transform((v) => v?.trim() || undefined)
  .refine(
    (v) => v === undefined || /^[A-Za-z]{2,8}(?:[-_][A-Za-z0-9]{1,8}){0,3}$/.test(v),
    'idnLanguage must be a language code like de or zh-Hans',
  );

/** docs/orders.md#premium-names: WHMCS's own names; a premium price is accepted only with both. */
const premiumFields = {
  premiumEnabled: wireBoolean('premiumEnabled')
    .optional()
    .meta({ description: '1 to accept a premium price (with premiumCost); without it a premium name is refused' }),
  premiumCost: optionalText('premiumCost')
    .refine((v) => v === undefined || /^\s*\d{1,9}(?:\.\d{1,2})?\s*$/.test(v), {
      message: 'premiumCost must be an amount like 500.00',
    })
    .meta({ description: 'The premium price accepted, at least the current one (for the whole period), like 500.00' }),
};

const registerFields = {
  domain: domainField,
  regperiod,
  nameservers: nameserversField,
  contacts: contactsField,
  addons: addonsField,
  domainfields: optionalText('domainfields'),
  idnLanguage,
  originalvars: originalvarsField,
  ...premiumFields,
};

/** docs/api.md#register-a-domain. */
export const RegisterBody = z.object(registerFields);
/** docs/api.md#transfer-a-domain-in: the register body plus `eppcode`. */
export const TransferBody = z.object({
  ...registerFields,
  eppcode: text('eppcode').trim().min(1, 'eppcode is required').max(255, 'eppcode is longer than 255 characters'),
});
/** docs/api.md#renew-a-domain. */
export const RenewBody = z.object({
  domain: domainField,
  regperiod,
  addons: addonsField,
  idnLanguage,
  ...premiumFields,
});

/** The accepted premium price: only when the request says premiumEnabled and gives premiumCost. */
function acceptedPremium(body: { premiumEnabled?: boolean; premiumCost?: string }): { premiumCost?: number } {
  if (body.premiumEnabled !== true || body.premiumCost === undefined) return {};
  return { premiumCost: parseAmount(body.premiumCost, 'premiumCost') };
}

export function toRegisterCommand(body: z.infer<typeof RegisterBody>): RegisterCommand {
  return {
    domain: body.domain,
    period: body.regperiod,
    nameservers: nameserversFromWire(body.nameservers),
    contacts: toContacts(body.contacts),
    addons: toAddons(body.addons),
    fields: body.domainfields === undefined ? {} : decodeDomainFields(body.domainfields),
    ...(body.idnLanguage && { idnLanguage: body.idnLanguage }),
    ...(body.originalvars !== undefined && { originalVars: JSON.stringify(body.originalvars) }),
    ...acceptedPremium(body),
  };
}

export function toTransferCommand(body: z.infer<typeof TransferBody>): TransferCommand {
  return { ...toRegisterCommand(body), eppCode: body.eppcode };
}

export function toRenewCommand(body: z.infer<typeof RenewBody>): RenewCommand {
  return {
    domain: body.domain,
    period: body.regperiod,
    addons: toAddons(body.addons),
    ...(body.idnLanguage && { idnLanguage: body.idnLanguage }),
    ...acceptedPremium(body),
  };
}

const isObject = (v: WireValue | undefined): v is { [key: string]: WireValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

const TRUE = new Set(['true', '1', 'on', 'yes']);
const FALSE = new Set(['false', '0', 'off', 'no', '']);

/** docs/api.md#addons-field: addon name → boolean; booleans of docs/api.md#requests (true/false, 1/0, on/off, yes/no). */
export function toAddons(value: WireValue | undefined): Record<string, boolean> {
  if (value === undefined || value === '') return {};
  if (!isObject(value)) throw invalid('addons must be sent as addons[idprotection]=1, …');
  const addons: Record<string, boolean> = {};
  for (const [name, v] of Object.entries(value)) {
    const flag = typeof v === 'string' ? v.trim().toLowerCase() : undefined;
    if (flag === undefined || (!TRUE.has(flag) && !FALSE.has(flag)))
      throw invalid(`addons.${name.slice(0, 40)} must be true or false`);
    addons[name.toLowerCase()] = TRUE.has(flag);
  }
  return addons;
}
