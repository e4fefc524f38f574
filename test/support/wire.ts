import qs from 'qs';
import type { Route } from '../../src/http/route-table';
import type { Harness } from './harness';

/** A PHP-style form body (`a[b][0]=…`), as billing platforms send it. */
export const form = (body: Record<string, unknown>) =>
  qs.stringify(body, { arrayFormat: 'indices', encodeValuesOnly: true });

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
