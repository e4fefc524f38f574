import { ROUTES } from '../../src/http/routes';
import { givenDomain } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';

/** Bodies a confused or hostile client may send; none of them may get a 500. */
const GARBAGE = [
  'dnsrecords=abc',
  'dnsrecords[0]=x',
  'dnsrecords[a][b][c]=1',
  'dnsrecords[0][type]=A&dnsrecords[0][address][]=1.2.3.4',
  'contactdetails=x',
  'contactdetails[Registrant]=x',
  'contactdetails[Registrant][First Name][]=x',
  'prefix[a]=b&forwardto=c',
  'prefix[]=a&forwardto[0][x]=y',
  'ns1[]=a&ns2=b',
  'nameservers=x',
  'nameservers[ns1][x]=y',
  'lockstatus[]=locked',
  'status[]=1',
  'transfertag[]=x',
  'nameserver[]=ns1.x.com&ipaddress[]=1.1.1.1',
  `dnsrecords[0][type]=TXT&dnsrecords[0][address]=${'%00'.repeat(10)}`,
  `nameserver=${'a.'.repeat(300)}com`,
];

const DOMAIN_ROUTES = ROUTES.filter((r) => r.path.includes(':domain'));

describe('bad input on the domain routes never gets a 500', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
    await givenDomain(h.module, 'garbage.com');
  });
  afterAll(async () => {
    await h.close();
  });

  it.each(DOMAIN_ROUTES.map((r) => [r.method.toUpperCase(), r.path, r] as const))('%s %s', async (_m, _p, r) => {
    for (const body of GARBAGE) {
      const path = r.path.replace(':domain', 'garbage.com');
      const res =
        r.method === 'get'
          ? await h.http.get(`${path}?${body}`).set(h.headers())
          : await h.http.post(path).set(h.headers()).type('form').send(body);
      expect({ body, status: res.status < 500 || res.status === 502 || res.status === 504 }).toEqual({
        body,
        status: true,
      });
      if (res.status >= 400) expect(typeof res.body.error).toBe('string');
    }
  });

  it.each(['%E0%A4%A', '..', 'a%2Fb.com', '%00.com', 'xn--.com', `${'a'.repeat(300)}.com`])(
    'refuses the domain %s in the path with 400',
    async (domain) => {
      const res = await h.http.get(`/domains/${domain}/information`).set(h.headers());
      expect(res.status).toBe(400);
      expect(typeof res.body.error).toBe('string');
    },
  );
});
