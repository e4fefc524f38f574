import { givenDomain, platformRecord } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { form, REGISTRANT } from '../support/wire';

/**
 * docs/api.md#nameservers-field: one reader and one rule for every route that takes nameservers,
 * so ordering a domain and saving its nameservers accept and refuse the same input with the same words.
 */
const ACCEPTED: Array<[string, Record<string, string | string[]>, string[]]> = [
  ['keyed', { ns1: 'ns1.example.net', ns2: 'ns2.example.net' }, ['ns1.example.net', 'ns2.example.net']],
  [
    'keyed with unset ones empty',
    { ns1: 'a.example.net', ns2: 'b.example.net', ns3: '', ns4: '', ns5: '' },
    ['a.example.net', 'b.example.net'],
  ],
  [
    'a blank in between, dropped',
    { ns1: 'a.example.net', ns2: '', ns3: 'c.example.net' },
    ['a.example.net', 'c.example.net'],
  ],
  ['positional, normalised', ['NS1.Example.NET', 'ns2.example.net.'] as never, ['ns1.example.net', 'ns2.example.net']],
];

const REFUSED: Array<[string, Record<string, unknown> | unknown[], string]> = [
  ['one nameserver', { ns1: 'ns1.example.net' }, 'nameservers: ns1 and ns2 are required'],
  ['one after dropping blanks', { ns1: 'ns1.example.net', ns2: '', ns3: '' }, 'nameservers: ns1 and ns2 are required'],
  [
    'not a host name',
    { ns1: 'ns1.example.net', ns2: 'bad_host' },
    'nameservers: ns2 "bad_host" is not a valid host name',
  ],
  ['twice', { ns1: 'ns1.example.net', ns2: 'NS1.example.net' }, 'nameservers: the same nameserver is listed twice'],
  [
    'an unknown key',
    { ns1: 'a.example.net', ns9: 'b.example.net' },
    'nameservers: "ns9" is not a nameserver key; use ns1 to ns5',
  ],
  [
    'keyed mixed with positional',
    { ns1: 'a.example.net', ns2: 'b.example.net', 0: 'c.example.net' },
    'nameservers: "0" is not a nameserver key; use ns1 to ns5',
  ],
  [
    'a list where one name belongs',
    { ns1: 'a.example.net', ns2: 'b.example.net', ns4: ['c', 'd'] },
    'nameservers: ns4 must be a single host name',
  ],
  [
    'six',
    ['a.example.net', 'b.example.net', 'c.example.net', 'd.example.net', 'e.example.net', 'f.example.net'],
    'nameservers: at most 5 (ns1 to ns5)',
  ],
];

describe('nameservers, the same on every route', () => {
  let h: Harness;
  let serial = 0;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  const post = (path: string, body: Record<string, unknown>) =>
    h.http.post(path).set(h.headers()).type('form').send(form(body));
  /** Each route with the nameservers under test, on a fresh name; answers the reply and the name. */
  const ROUTES = {
    register: async (nameservers: unknown) => {
      const name = `ns-order-${++serial}.com`;
      const body = { domain: name, regperiod: 1, nameservers, contacts: { registrant: REGISTRANT } };
      return { res: await post('/order/domains/register', body), name };
    },
    'save nameservers': async (nameservers: unknown) => {
      const name = `ns-save-${++serial}.com`;
      await givenDomain(h.module, name);
      return { res: await post(`/domains/${name}/nameservers`, { nameservers }), name };
    },
  };
  const routes = Object.entries(ROUTES);

  describe.each(routes)('%s', (route, send) => {
    it.each(ACCEPTED)(`accepts %s on ${route}`, async (_case, nameservers, stored) => {
      const { res, name } = await send(nameservers);
      expect(res.status).toBe(200);
      expect((await platformRecord(h.module, name))?.nameservers).toEqual(stored);
    });

    it.each(REFUSED)(`refuses %s on ${route} with 400`, async (_case, nameservers, message) => {
      const { res } = await send(nameservers);
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: message });
    });
  });
});
