/**
 * Contacts on the wire, for every path that takes them (orders: `contacts[…]`, `POST …/contact`:
 * `contactdetails[…]`) and the one that shows them (`GET …/contact`). Field and role spellings
 * come from the one table in src/core/domain/contact-fields.ts.
 */
import { CONTACT_ROLES, type Contact, type ContactRole, type Contacts } from '../../core/registrar/plugin';
import { contactRole, knownContactField, STANDARD_CONTACT_FIELDS } from '../../core/domain/contact-fields';
import { normaliseContact } from '../../core/order/contacts';
import { DomainError } from '../../core/common/errors';
import type { WireValue } from './form-body';

const invalid = (message: string) => new DomainError('validation_failed', message);
const isObject = (v: WireValue | undefined): v is { [key: string]: WireValue } =>
  typeof v === 'object' && v !== null && !Array.isArray(v);

/** The billing platform's display names of the fields (WHMCS's contact form labels). */
const DISPLAY_NAMES: Record<string, string> = {
  firstname: 'First Name',
  lastname: 'Last Name',
  fullname: 'Full Name',
  companyname: 'Company Name',
  email: 'Email Address',
  address1: 'Address 1',
  address2: 'Address 2',
  city: 'City',
  state: 'State',
  postcode: 'Postcode',
  country: 'Country',
  phonenumber: 'Phone Number',
  tax_id: 'Tax ID',
};
const ROLE_DISPLAY: Record<ContactRole, string> = {
  registrant: 'Registrant',
  admin: 'Admin',
  tech: 'Technical',
  billing: 'Billing',
};

/**
 * A role with nothing in it: an empty value (clients that send nulls as bare keys send
 * `contacts[tech]`), or fields that are all empty text (the empty roles `GET …/contact` shows,
 * sent back as they came). Such a role is absent.
 */
function isEmptyRole(fields: WireValue | undefined): boolean {
  if (fields === undefined || fields === '') return true;
  return isObject(fields) && Object.values(fields).every((v) => typeof v === 'string' && v.trim() === '');
}

/** The roles of a contacts object, each role's fields as single texts; empty roles left out, unknown roles refused. */
function rolesOf(
  value: WireValue,
  field: string,
  fieldText: (role: ContactRole, name: string, v: WireValue) => string,
): Partial<Record<ContactRole, Record<string, string>>> {
  const contacts: Partial<Record<ContactRole, Record<string, string>>> = {};
  for (const [rawRole, fields] of Object.entries(value as Record<string, WireValue>)) {
    const role = contactRole(rawRole);
    if (!role)
      throw invalid(
        `${field}: "${rawRole.slice(0, 40)}" is not a contact type; use Registrant, Admin, Tech or Billing`,
      );
    if (isEmptyRole(fields)) continue;
    if (contacts[role]) throw invalid(`${field}: the ${role} contact is given twice`);
    if (!isObject(fields))
      throw invalid(`${field}[${rawRole}] must be a set of fields like ${field}[${rawRole}][firstname]=…`);
    const flat: Record<string, string> = Object.create(null);
    for (const [name, v] of Object.entries(fields)) flat[name] = fieldText(role, name, v);
    contacts[role] = flat;
  }
  return contacts;
}

/**
 * Orders (docs/api.md#contacts-field): `contacts[Registrant|registrant|Admin|Tech|Technical|Billing][field]`,
 * fields by any spelling of the table; other fields are kept under their folded name so a
 * registrar plugin can still read TLD-specific extras.
 */
export function toContacts(value: WireValue | undefined): Partial<Record<ContactRole, Contact>> {
  if (value === undefined || value === '') return {};
  if (!isObject(value)) throw invalid('contacts must be sent as contacts[registrant][firstname]=…');
  const roles = rolesOf(value, 'contacts', (role, name, v) => {
    if (typeof v !== 'string') throw invalid(`contacts.${role}.${name.slice(0, 40)} must be a single text value`);
    return v;
  });
  const contacts: Partial<Record<ContactRole, Contact>> = {};
  for (const role of CONTACT_ROLES) {
    const fields = roles[role];
    if (fields) contacts[role] = normaliseContact(fields, `contacts.${role}`);
  }
  return contacts;
}

/** `POST …/contact`: `contactdetails[Registrant][First Name]=…`, fields by any spelling of the table, no others. */
export function contactsFromWire(value: WireValue | undefined): Partial<Record<ContactRole, Record<string, string>>> {
  if (value === undefined || value === '') throw invalid('contactdetails is required');
  if (!isObject(value))
    throw invalid('contactdetails must hold contacts by role, like contactdetails[Registrant][First Name]');
  const roles = rolesOf(value, 'contactdetails', (_role, fieldKey, v) => {
    if (typeof v !== 'string') throw invalid(`contactdetails: ${fieldKey.slice(0, 40)} must be a single text value`);
    return v;
  });
  const contacts: Partial<Record<ContactRole, Record<string, string>>> = {};
  for (const [role, fields] of Object.entries(roles) as Array<[ContactRole, Record<string, string>]>) {
    const contact: Record<string, string> = {};
    for (const [fieldKey, fieldValue] of Object.entries(fields)) {
      const field = knownContactField(fieldKey);
      if (!field)
        throw invalid(
          `contactdetails[${ROLE_DISPLAY[role]}]: "${fieldKey.slice(0, 40)}" is not a contact field; use ${Object.values(DISPLAY_NAMES).join(', ')}`,
        );
      const given = fieldValue.trim();
      const before = contact[field]?.trim();
      if (before && given && before !== given)
        throw invalid(`contactdetails[${ROLE_DISPLAY[role]}]: ${field} is given twice with different values`);
      if (!before) contact[field] = fieldValue;
    }
    contacts[role] = contact;
  }
  return contacts;
}

/**
 * Contacts by the billing platform's role and field display names (Registrant → First Name, …):
 * every role, each with every standard field, empty ones as empty strings (docs/api.md#contacts), then
 * any other field the registrar keeps.
 */
export function contactsReply(contacts: Contacts): Record<string, Record<string, string>> {
  const reply: Record<string, Record<string, string>> = {};
  for (const role of CONTACT_ROLES) {
    const contact: Readonly<Record<string, string>> = contacts[role] ?? {};
    const shown: Record<string, string> = {};
    for (const field of STANDARD_CONTACT_FIELDS) shown[DISPLAY_NAMES[field] ?? field] = contact[field] ?? '';
    for (const [field, value] of Object.entries(contact)) shown[DISPLAY_NAMES[field] ?? field] = value ?? '';
    reply[ROLE_DISPLAY[role]] = shown;
  }
  return reply;
}
