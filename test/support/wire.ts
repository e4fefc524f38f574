import qs from 'qs';
import type { Route } from '../../src/http/route-table';
import type { Harness } from './harness';

/** A registrant as the platform's own contact fields name it. */
export const REGISTRANT = {
  firstname: 'Ada',
  lastname: 'Lovelace',
  email: 'ada@example.com',
  address1: '1 Analytical Row',
  city: 'London',
  country: 'GB',
  postcode: 'N1 1AA',
  phonenumber: '+44.2070000000',
};

/** The same registrant as a WHMCS registrar module spells its fields. */
export const WHMCS_REGISTRANT = {
  'First Name': 'Ada',
  'Last Name': 'Lovelace',
  'Email Address': 'ada@example.com',
  'Address 1': '1 Analytical Row',
  City: 'London',
  Country: 'GB',
  Postcode: 'N1 1AA',
  'Phone Number': '+44.2070000000',
};

/** A PHP-style form body (`a[b][0]=…`), as billing platforms send it. */
export const form = (body: Record<string, unknown>) =>
  qs.stringify(body, { arrayFormat: 'indices', encodeValuesOnly: true });

/** A one-year register (or transfer, with `eppcode`) body for `domain`, as a billing module sends it; `extra` adds or replaces fields. */
export const registerForm = (domain: string, extra: Record<string, unknown> = {}) =>
  form({
    domain,
    regperiod: '1',
    nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
    contacts: { registrant: REGISTRANT },
    ...extra,
  });

/** Places a one-year register order for `domain` over HTTP, as `who` (default: the harness's reseller); `extra` adds or replaces form fields. */
export const placeRegister = (
  h: Pick<Harness, 'http' | 'headers'>,
  domain: string,
  extra: Record<string, unknown> = {},
  who?: { email: string; apiKey: string },
) => h.http.post('/order/domains/register').set(h.headers(who)).type('form').send(registerForm(domain, extra));

/** Calls a route the way a billing platform does: GET parameters in the query string, POST ones in a form body. */
export function call(
  h: Harness,
  r: Pick<Route, 'method' | 'path'>,
  domainInPath: string,
  body: Record<string, unknown>,
  who?: { email: string; apiKey: string },
) {
  const path = r.path.replace(':domain', encodeURIComponent(domainInPath));
  if (r.method === 'get') return h.http.get(`${path}?${form(body)}`).set(h.headers(who));
  return h.http.post(path).set(h.headers(who)).type('form').send(form(body));
}
