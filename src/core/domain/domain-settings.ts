import { CONTACT_ROLES, type Contact, type ContactRole, type Contacts, type EmailForward } from '../registrar/plugin';
import { DomainError } from '../common/errors';
import { normaliseEmail } from '../common/validation';
import { parseDomainName } from './domain-name';
import { parseHostName } from './host-names';

const quote = (value: string) => JSON.stringify(String(value).slice(0, 80));

export const MIN_NAMESERVERS = 2;
export const MAX_NAMESERVERS = 5;

/**
 * docs/api.md#nameservers-field, the one rule for every route that takes nameservers (ordering
 * and saving them): ns1 and ns2 required, at most five, each a host name normalised like a
 * domain, none twice. Empty entries were dropped by the reader.
 */
export function normaliseNameservers(given: readonly string[]): string[] {
  const nameservers = given.map((ns, i) => {
    try {
      return parseDomainName(ns).ascii;
    } catch {
      throw new DomainError(
        'validation_failed',
        `nameservers: ns${i + 1} "${String(ns).slice(0, 80)}" is not a valid host name`,
      );
    }
  });
  if (nameservers.length < MIN_NAMESERVERS)
    throw new DomainError('validation_failed', 'nameservers: ns1 and ns2 are required');
  if (nameservers.length > MAX_NAMESERVERS)
    throw new DomainError('validation_failed', 'nameservers: at most 5 (ns1 to ns5)');
  if (new Set(nameservers).size !== nameservers.length)
    throw new DomainError('validation_failed', 'nameservers: the same nameserver is listed twice');
  return nameservers;
}

/** A child nameserver (glue host) must be a name under the domain it is registered for. */
export function parseChildHost(input: string, domainAscii: string): string {
  const host = parseHostName(input, 'nameserver');
  if (!host.endsWith(`.${domainAscii}`)) {
    throw new DomainError(
      'validation_failed',
      `nameserver must be a host under ${domainAscii}, like ns1.${domainAscii}; got ${quote(input)}`,
    );
  }
  return host;
}

/** .uk-style release tags: letters, digits, dots, dashes and underscores. */
export function parseTransferTag(input: string): string {
  const tag = String(input ?? '').trim();
  if (!/^[A-Za-z0-9._-]{1,64}$/.test(tag))
    throw new DomainError(
      'validation_failed',
      'transfertag must be 1 to 64 letters, digits, dots, dashes or underscores',
    );
  return tag;
}

export { CONTACT_FIELDS, type ContactField } from './contact-fields';

/**
 * Checks contact values (the wire has already mapped names to CONTACT_FIELDS). A registrant needs
 * what registries require (docs/api.md#contacts-field): a name, email, address1, city, country, postcode and
 * phone number. Emails and countries are normalised.
 */
export function normaliseContacts(contacts: Partial<Record<ContactRole, Record<string, string>>>): Contacts {
  const roles = CONTACT_ROLES.filter((role) => contacts[role] !== undefined);
  if (roles.length === 0)
    throw new DomainError(
      'validation_failed',
      'contactdetails must hold at least one contact (Registrant, Admin, Tech or Billing)',
    );
  const out: Partial<Record<ContactRole, Contact>> = {};
  for (const role of roles) {
    const contact: Record<string, string> = {};
    for (const [field, raw] of Object.entries(contacts[role]!)) {
      const value = String(raw ?? '')
        .replace(/\s+/g, ' ')
        .trim();
      if (value === '') continue;
      if (value.length > 255 || /[\u0000-\u001f\u007f]/.test(value))
        throw new DomainError('validation_failed', `${role} ${field} must be at most 255 printable characters`);
      if (field === 'email') contact.email = normaliseEmail(value);
      else if (field === 'country') {
        if (!/^[A-Za-z]{2}$/.test(value))
          throw new DomainError('validation_failed', `${role} country must be a two-letter ISO 3166 code, like GB`);
        contact.country = value.toUpperCase();
      } else contact[field] = value;
    }
    if (role === 'registrant') {
      const missing = ['email', 'address1', 'city', 'country', 'postcode', 'phonenumber'].filter((f) => !contact[f]);
      if (!contact.fullname && !(contact.firstname && contact.lastname))
        missing.unshift('firstname and lastname (or fullname)');
      if (missing.length > 0)
        throw new DomainError('validation_failed', `the registrant contact needs ${missing.join(', ')}`);
    }
    out[role] = contact;
  }
  return out;
}

export const MAX_EMAIL_FORWARDS = 100;
const LOCAL_PART = /^(?:\*|[a-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[a-z0-9!#$%&'*+/=?^_`{|}~-]+)*)$/;

/** Pairs `prefix[i]` with `forwardto[i]`; a pair with both empty is a blank form row and is left out. */
export function normaliseEmailForwards(prefixes: readonly string[], targets: readonly string[]): EmailForward[] {
  if (prefixes.length !== targets.length)
    throw new DomainError('validation_failed', 'prefix and forwardto must have the same number of entries');
  const forwards: EmailForward[] = [];
  prefixes.forEach((p, i) => {
    const prefix = String(p ?? '')
      .trim()
      .toLowerCase();
    const to = String(targets[i] ?? '').trim();
    if (prefix === '' && to === '') return;
    if (prefix.length > 64 || !LOCAL_PART.test(prefix))
      throw new DomainError(
        'validation_failed',
        `prefix[${i}] must be the part before the @ (or * for everything else); got ${quote(p)}`,
      );
    forwards.push({ prefix, forwardTo: normaliseEmail(to) });
  });
  if (forwards.length > MAX_EMAIL_FORWARDS)
    throw new DomainError('validation_failed', `at most ${MAX_EMAIL_FORWARDS} email forwards can be set`);
  const twice = forwards.find((f, i) => forwards.findIndex((g) => g.prefix === f.prefix) !== i);
  if (twice) throw new DomainError('validation_failed', `the prefix ${twice.prefix} is forwarded twice`);
  return forwards;
}
