import type { ContactRole } from '../registrar/plugin';

/**
 * The one table of contact field and role spellings, for every path that takes contacts (orders
 * and `POST …/contact`) and every path that shows them (docs/domain-management.md).
 */

/** The contact fields of the platform, by their lower-case names. */
export const CONTACT_FIELDS = [
  'firstname',
  'lastname',
  'fullname',
  'companyname',
  'email',
  'address1',
  'address2',
  'city',
  'state',
  'postcode',
  'country',
  'phonenumber',
  'tax_id',
] as const;
export type ContactField = (typeof CONTACT_FIELDS)[number];

/**
 * The fields every role is shown with, empty ones as empty strings: billing modules hand their
 * platform only the keys they get back, so a field left out disappears from its contact form.
 */
export const STANDARD_CONTACT_FIELDS: readonly ContactField[] = CONTACT_FIELDS.filter(
  // A full name and a tax id are TLD extras most billing platforms do not have a field for.
  (field) => field !== 'fullname' && field !== 'tax_id',
);

/**
 * Spellings by their folded form (lower case, no spaces, `_` or `-`), so one entry covers the
 * snake (`first_name`), camel (`firstName`) and display (`First Name`) spellings of a name:
 * the platform's own names, WHMCS's display names and Blesta's names (`company`, `zip`, `phone`).
 */
const FIELD_SPELLINGS: Record<string, ContactField> = {
  firstname: 'firstname',
  lastname: 'lastname',
  fullname: 'fullname',
  companyname: 'companyname',
  company: 'companyname',
  organisation: 'companyname',
  organization: 'companyname',
  email: 'email',
  emailaddress: 'email',
  address1: 'address1',
  address2: 'address2',
  city: 'city',
  state: 'state',
  region: 'state',
  postcode: 'postcode',
  postalcode: 'postcode',
  zip: 'postcode',
  zipcode: 'postcode',
  country: 'country',
  countrycode: 'country',
  phonenumber: 'phonenumber',
  phone: 'phonenumber',
  taxid: 'tax_id',
};

const ROLE_SPELLINGS: Record<string, ContactRole> = {
  registrant: 'registrant',
  admin: 'admin',
  administrative: 'admin',
  tech: 'tech',
  technical: 'tech',
  billing: 'billing',
};

const fold = (raw: string) => raw.toLowerCase().replace(/[\s_-]+/g, '');

/** "First Name", "first_name", "firstName", "phone" → the platform's name; undefined for a field not in the table. */
export function knownContactField(raw: string): ContactField | undefined {
  return FIELD_SPELLINGS[fold(raw)];
}

/** A field name folded (lower case, no spaces, `_` or `-`) and mapped through the table when it is known. */
export function contactFieldName(raw: string): string {
  return knownContactField(raw) ?? fold(raw);
}

/** `Registrant`, `registrant`, `Tech`, `Technical`, … → the contract's role names; undefined when unknown. */
export function contactRole(raw: string): ContactRole | undefined {
  return ROLE_SPELLINGS[fold(raw)];
}
