import { createHash } from 'node:crypto';
import type { Contact } from 'domain-reseller';
import type {
  CustomerCreateCustomerRequest,
  CustomerGetCustomerResponseData,
} from './vendor/openprovider-api.generated';

/**
 * Contacts are Openprovider customers, known by a handle (`XX123456-XX`). A handle's name cannot
 * be changed (the vendor's guide: clone it or make a new one), so a contact that changes becomes a
 * new handle, which the domain is then pointed at.
 */

/** A platform contact as Openprovider's customer, or the field that cannot be mapped. */
export function customerFrom(contact: Contact): CustomerCreateCustomerRequest | { readonly problem: string } {
  const value = (key: string) => (contact[key] ?? '').trim();
  const first = value('firstname');
  const last = value('lastname');
  const full = value('fullname') || [first, last].filter(Boolean).join(' ');
  if (!first && !last && !full) return { problem: 'the contact has no name' };
  const email = value('email');
  if (!email) return { problem: 'the contact has no email address' };
  const country = value('country').toUpperCase();
  if (!/^[A-Z]{2}$/.test(country)) return { problem: 'the contact has no two-letter country code' };
  const phone = phoneOf(value('phonenumber'), value('phonecc'));
  if (!phone)
    return { problem: `the contact's phone number "${value('phonenumber')}" is not international (+CC.NUMBER)` };
  const street = [value('address1'), value('address2')].filter(Boolean).join(', ');
  if (!street || !value('city')) return { problem: 'the contact has no street address or city' };
  const company = value('companyname');
  const vat = value('tax_id');
  return {
    name: { first_name: first || full, last_name: last || full, full_name: full },
    ...(company ? { company_name: company } : {}),
    email,
    address: {
      street,
      number: '',
      zipcode: value('postcode'),
      city: value('city'),
      state: value('state'),
      country,
    },
    phone,
    ...(vat ? { vat } : {}),
  };
}

/** Openprovider's customer as a platform contact (the field names of docs/api.md#contacts-field). */
export function contactFrom(customer: CustomerGetCustomerResponseData): Contact {
  const address = customer.address ?? {};
  const street = [address.street, address.number, address.suffix].filter((s) => s && s.trim() !== '').join(' ');
  const phone = customer.phone;
  const contact: Record<string, string> = {
    firstname: customer.name?.first_name ?? '',
    lastname: customer.name?.last_name ?? '',
    fullname:
      customer.name?.full_name ?? [customer.name?.first_name, customer.name?.last_name].filter(Boolean).join(' '),
    companyname: customer.company_name ?? '',
    email: customer.email ?? '',
    address1: street,
    city: address.city ?? '',
    state: address.state ?? '',
    postcode: address.zipcode ?? '',
    country: address.country ?? '',
    phonenumber: phone?.country_code
      ? `${phone.country_code}.${phone.area_code ?? ''}${phone.subscriber_number ?? ''}`
      : '',
  };
  if (customer.vat) contact.tax_id = customer.vat;
  return Object.fromEntries(Object.entries(contact).filter(([, v]) => v !== ''));
}

/** `+44.2071234567`, `+44 20 7123 4567`, or a local number with its country calling code. */
function phoneOf(number: string, cc: string): CustomerCreateCustomerRequest['phone'] | undefined {
  let country: string;
  let rest: string;
  const international = /^\+(\d{1,3})[.\s-]?([\d\s().-]{4,20})$/.exec(number);
  if (international) {
    country = international[1]!;
    rest = international[2]!.replace(/\D/g, '');
  } else if (/^\d{1,3}$/.test(cc.replace(/^\+/, '')) && /^[\d\s().-]{4,20}$/.test(number)) {
    country = cc.replace(/^\+/, '');
    rest = number.replace(/\D/g, '').replace(/^0/, '');
  } else return undefined;
  if (rest.length < 4) return undefined;
  // Openprovider splits the national number in an area code and a subscriber number; read back, the two are joined again.
  return { country_code: `+${country}`, area_code: rest.slice(0, 3), subscriber_number: rest.slice(3) };
}

/** A key for the same contact data, so the same person reuses one handle. */
export function contactKey(customer: CustomerCreateCustomerRequest): string {
  return createHash('sha256').update(JSON.stringify(customer)).digest('hex').slice(0, 32);
}

/** Whether two platform contacts hold the same data, compared as Openprovider would store them. */
export function sameContact(a: Contact, b: Contact): boolean {
  const ca = customerFrom(a);
  const cb = customerFrom(b);
  if ('problem' in ca || 'problem' in cb) return false;
  return contactKey(ca) === contactKey(cb);
}
