import { randomBytes, randomInt } from 'node:crypto';
import type { Contact } from 'domain-reseller';
import type { ContactData } from './frames';
import { child, childText, children, NS, type XmlElement } from './xml';

/** A contact the registry cannot take as given; the call is refused before anything is sent. */
export class ContactInputError extends Error {}

// ITU country calling codes are prefix-free: 1 and 7 are one digit, these are two, all others three.
const TWO_DIGIT_CODES = new Set([
  '20',
  '27',
  '30',
  '31',
  '32',
  '33',
  '34',
  '36',
  '39',
  '40',
  '41',
  '43',
  '44',
  '45',
  '46',
  '47',
  '48',
  '49',
  '51',
  '52',
  '53',
  '54',
  '55',
  '56',
  '57',
  '58',
  '60',
  '61',
  '62',
  '63',
  '64',
  '65',
  '66',
  '81',
  '82',
  '84',
  '86',
  '90',
  '91',
  '92',
  '93',
  '94',
  '95',
  '98',
]);

/**
 * RFC 5733 wants phone numbers as `+CC.NUMBER`. Accepts that form, `+CC NUMBER` with any
 * separators, `00CC…`, and a local number with `phonecc` beside it; anything else is refused
 * rather than guessed.
 */
export function toE164(raw: string | undefined, callingCode: string | undefined, field: string): string | undefined {
  const text = (raw ?? '').trim();
  if (text === '') return undefined;
  if (/^\+\d{1,3}\.\d{1,14}$/.test(text)) return text;
  const digits = text.replace(/[\s\-()./]/g, '');
  let international: string | undefined;
  if (/^\+\d+$/.test(digits)) international = digits.slice(1);
  else if (/^00\d+$/.test(digits)) international = digits.slice(2);
  else if (/^\d+$/.test(digits) && callingCode && /^\+?\d{1,3}$/.test(callingCode.trim())) {
    const cc = callingCode.trim().replace('+', '');
    if (digits.length > 14) throw new ContactInputError(`${field} is too long`);
    return `+${cc}.${digits}`;
  }
  if (!international) throw new ContactInputError(`${field} must be an international number like +44.2071234567`);
  const ccLength =
    international.startsWith('1') || international.startsWith('7')
      ? 1
      : TWO_DIGIT_CODES.has(international.slice(0, 2))
        ? 2
        : 3;
  const cc = international.slice(0, ccLength);
  const number = international.slice(ccLength);
  if (number.length < 1 || number.length > 14)
    throw new ContactInputError(`${field} must be an international number like +44.2071234567`);
  return `+${cc}.${number}`;
}

const field = (c: Contact, ...names: string[]): string => {
  for (const n of names) {
    const v = c[n];
    if (typeof v === 'string' && v.trim() !== '') return v.trim().replace(/\s+/g, ' ');
  }
  return '';
};

const limit = (value: string, max: number, name: string, role: string): string => {
  if ([...value].length > max) throw new ContactInputError(`${role} ${name} is longer than ${max} characters`);
  return value;
};

/** Maps the platform's contact fields (the field names of docs/api.md#contacts-field) onto an RFC 5733 contact, checking what the schema demands. */
export function toContactData(c: Contact, role: string, postalInfoType: 'auto' | 'int' | 'loc'): ContactData {
  const name = field(c, 'fullname') || [field(c, 'firstname'), field(c, 'lastname')].filter(Boolean).join(' ');
  if (!name) throw new ContactInputError(`${role} contact needs a name (firstname and lastname, or fullname)`);
  const city = field(c, 'city');
  if (!city) throw new ContactInputError(`${role} contact needs a city`);
  const countryCode = field(c, 'country').toUpperCase();
  if (!/^[A-Z]{2}$/.test(countryCode))
    throw new ContactInputError(`${role} country must be a two-letter ISO 3166 code`);
  const email = field(c, 'email');
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new ContactInputError(`${role} contact needs a valid email address`);
  const street = [field(c, 'address1'), field(c, 'address2'), field(c, 'address3')]
    .filter(Boolean)
    .map((s) => limit(s, 255, 'address line', role));
  const data = {
    name: limit(name, 255, 'name', role),
    org: limit(field(c, 'companyname', 'organization'), 255, 'company name', role) || undefined,
    street,
    city: limit(city, 255, 'city', role),
    state: limit(field(c, 'state'), 255, 'state', role) || undefined,
    postcode: limit(field(c, 'postcode'), 16, 'postcode', role) || undefined,
    countryCode,
    voice: toE164(field(c, 'phonenumber', 'fullphonenumber'), field(c, 'phonecc') || undefined, `${role} phonenumber`),
    fax: toE164(field(c, 'faxnumber'), field(c, 'phonecc') || undefined, `${role} faxnumber`),
    email: limit(email, 255, 'email', role),
  };
  // RFC 5733 section 2.3: the "int" form is limited to 7-bit ASCII; anything else needs "loc".
  const isAscii = Object.values(data).every(
    (v) =>
      v === undefined ||
      (Array.isArray(v) ? v.every((s) => /^[\x20-\x7e]*$/.test(s)) : /^[\x20-\x7e]*$/.test(String(v))),
  );
  const postalType = postalInfoType === 'auto' ? (isAscii ? 'int' : 'loc') : postalInfoType;
  if (postalType === 'int' && !isAscii)
    throw new ContactInputError(
      `${role} contact has non-ASCII characters, which the registry's "int" postal form cannot hold`,
    );
  return { postalType, ...data };
}

/** Reads `<contact:infData>` back into the platform's field names. */
export function fromContactInfo(infData: XmlElement): Contact {
  const postal = children(infData, NS.contact, 'postalInfo');
  const p = postal.find((x) => x.attrs.type === 'int') ?? postal[0];
  const addr = child(p, NS.contact, 'addr');
  const name = childText(p, NS.contact, 'name') ?? '';
  const [firstname, ...rest] = name.split(' ');
  const streets = children(addr, NS.contact, 'street').map((s) => s.text.trim());
  const out: Record<string, string> = {
    fullname: name,
    firstname: firstname ?? '',
    lastname: rest.join(' '),
    companyname: childText(p, NS.contact, 'org') ?? '',
    email: childText(infData, NS.contact, 'email') ?? '',
    address1: streets[0] ?? '',
    address2: streets[1] ?? '',
    city: childText(addr, NS.contact, 'city') ?? '',
    state: childText(addr, NS.contact, 'sp') ?? '',
    postcode: childText(addr, NS.contact, 'pc') ?? '',
    country: childText(addr, NS.contact, 'cc') ?? '',
    phonenumber: childText(infData, NS.contact, 'voice') ?? '',
  };
  if (streets[2]) out.address3 = streets[2];
  const fax = childText(infData, NS.contact, 'fax');
  if (fax) out.faxnumber = fax;
  return out;
}

/** A contact id (RFC 5733 clIDType: 3 to 16 characters): the configured prefix and random base-36 characters. */
export function newContactId(prefix: string): string {
  const room = 16 - prefix.length;
  let id = '';
  while (id.length < room) id += randomBytes(8).readBigUInt64BE().toString(36);
  return `${prefix}${id.slice(0, Math.min(room, 12))}`.toUpperCase();
}

const AUTH_SETS = {
  lower: 'abcdefghijkmnopqrstuvwxyz',
  upper: 'ABCDEFGHJKLMNPQRSTUVWXYZ',
  digit: '23456789',
  symbol: '!#$%*+-=?@^_~',
} as const;

export type AuthCodeClass = keyof typeof AUTH_SETS;
export const AUTH_CODE_CLASSES = Object.keys(AUTH_SETS) as AuthCodeClass[];

/** How auth info codes are made: their length and the classes of characters (each appears at least once). */
export interface AuthCodePolicy {
  readonly length: number;
  readonly characters: readonly AuthCodeClass[];
}

/**
 * The randomness of a code of the policy, in bits, counted low: one character of each class is
 * drawn from that class alone, the rest from all of them (the shuffle's extra is not counted).
 */
export function authCodeBits(policy: AuthCodePolicy): number {
  const all = policy.characters.reduce((n, c) => n + AUTH_SETS[c].length, 0);
  const forced = policy.characters.reduce((bits, c) => bits + Math.log2(AUTH_SETS[c].length), 0);
  return forced + Math.max(0, policy.length - policy.characters.length) * Math.log2(all);
}

/**
 * An auth code of the policy: printable ASCII without look-alikes (0/O, 1/l/I) or characters
 * that need escaping in XML, with every class of the policy present, as registries demand.
 */
export function newAuthCode(policy: AuthCodePolicy): string {
  const pick = (set: string) => set[randomInt(set.length)]!;
  const all = policy.characters.map((c) => AUTH_SETS[c]).join('');
  const chars = [
    ...policy.characters.map((c) => pick(AUTH_SETS[c])),
    ...Array.from({ length: Math.max(0, policy.length - policy.characters.length) }, () => pick(all)),
  ];
  for (let i = chars.length - 1; i > 0; i--) {
    const j = randomInt(i + 1);
    [chars[i], chars[j]] = [chars[j]!, chars[i]!];
  }
  return chars.join('');
}
