import type { Contact, Contacts } from '../registrar/plugin';
import { contactFieldName } from '../domain/contact-fields';
import { DomainError } from '../common/errors';

/** The spellings of fields and roles (one table for every path: src/core/domain/contact-fields.ts). */
export { contactFieldName, contactRole } from '../domain/contact-fields';

const MAX_FIELDS = 40;
const MAX_VALUE = 255;
const FIELD_NAME = /^[a-z0-9]{1,64}$/;

/** One contact's fields folded to the lower-case names; two spellings of one field must agree. */
export function normaliseContact(fields: Readonly<Record<string, string>>, where: string): Contact {
  const entries = Object.entries(fields);
  if (entries.length > MAX_FIELDS)
    throw new DomainError('validation_failed', `${where} has more than ${MAX_FIELDS} fields`);
  const out: Record<string, string> = Object.create(null);
  for (const [rawName, rawValue] of entries) {
    const name = contactFieldName(rawName);
    if (!FIELD_NAME.test(name.replace('_', '')))
      throw new DomainError('validation_failed', `${where}: "${rawName.slice(0, 40)}" is not a contact field name`);
    const value = String(rawValue).trim();
    if (value.length > MAX_VALUE)
      throw new DomainError('validation_failed', `${where}.${name} is longer than ${MAX_VALUE} characters`);
    if (value === '') continue;
    if (out[name] !== undefined && out[name] !== value) {
      throw new DomainError('validation_failed', `${where}.${name} is given twice with different values`);
    }
    out[name] = value;
  }
  if (out.country) out.country = out.country.toUpperCase();
  if (out.email) out.email = out.email.toLowerCase();
  return out;
}

const EMAIL = /^[^\s@]{1,64}@[^\s@]+\.[^\s@]{2,}$/;

/**
 * docs/api.md#contacts-field: a registrant needs first and last name (or a full name), email, address1, city,
 * country (ISO 3166 alpha-2), postcode and phone number. Every missing field is named at once.
 */
export function assertCompleteRegistrant(contact: Contact, where = 'contacts.registrant'): void {
  const missing: string[] = [];
  if (!(contact.firstname && contact.lastname) && !contact.fullname)
    missing.push('firstname and lastname (or fullname)');
  for (const field of ['email', 'address1', 'city', 'country', 'postcode', 'phonenumber'])
    if (!contact[field]) missing.push(field);
  if (missing.length > 0) throw new DomainError('validation_failed', `${where} is missing ${missing.join(', ')}`);
  if (!EMAIL.test(contact.email))
    throw new DomainError('validation_failed', `${where}.email is not a valid email address`);
  if (!ISO_COUNTRIES.has(contact.country))
    throw new DomainError('validation_failed', `${where}.country must be an ISO 3166 alpha-2 code like US or DE`);
}

/** Uses the group's default registrant when the order carries none (docs/api.md#contacts-field). */
export function withDefaultRegistrant(
  contacts: Contacts,
  groupDefault: Readonly<Record<string, string>> | null,
): Contacts {
  if (contacts.registrant) return contacts;
  if (!groupDefault) {
    throw new DomainError(
      'validation_failed',
      'contacts.registrant is required (your account has no default registrant contact)',
    );
  }
  return { ...contacts, registrant: normaliseContact(groupDefault, "your account's default registrant contact") };
}

// ISO 3166-1 alpha-2, officially assigned codes.
const ISO_COUNTRIES = new Set(
  (
    'AD AE AF AG AI AL AM AO AQ AR AS AT AU AW AX AZ BA BB BD BE BF BG BH BI BJ BL BM BN BO BQ BR BS BT BV BW BY BZ ' +
    'CA CC CD CF CG CH CI CK CL CM CN CO CR CU CV CW CX CY CZ DE DJ DK DM DO DZ EC EE EG EH ER ES ET FI FJ FK FM FO FR ' +
    'GA GB GD GE GF GG GH GI GL GM GN GP GQ GR GS GT GU GW GY HK HM HN HR HT HU ID IE IL IM IN IO IQ IR IS IT JE JM JO JP ' +
    'KE KG KH KI KM KN KP KR KW KY KZ LA LB LC LI LK LR LS LT LU LV LY MA MC MD ME MF MG MH MK ML MM MN MO MP MQ MR MS MT ' +
    'MU MV MW MX MY MZ NA NC NE NF NG NI NL NO NP NR NU NZ OM PA PE PF PG PH PK PL PM PN PR PS PT PW PY QA RE RO RS RU RW ' +
    'SA SB SC SD SE SG SH SI SJ SK SL SM SN SO SR SS ST SV SX SY SZ TC TD TF TG TH TJ TK TL TM TN TO TR TT TV TW TZ UA UG ' +
    'UM US UY UZ VA VC VE VG VI VN VU WF WS YE YT ZA ZM ZW'
  ).split(' '),
);
