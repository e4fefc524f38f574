import { ROUTES } from '../../src/http/routes';
import { givenDomain, platformRecord } from '../support/domains';
import { startHarness, type Harness } from '../support/harness';
import { call } from '../support/wire';

/** One body every {domain} route accepts, so that only ownership can stop the request. */
const validBody = (domain: string) => ({
  domain,
  regperiod: '1',
  dnsrecords: [{ hostname: '@', type: 'A', address: '192.0.2.1', priority: 'N/A' }],
  ns1: 'ns1.example.net',
  ns2: 'ns2.example.net',
  nameserver: `ns1.${domain}`,
  ipaddress: '192.0.2.1',
  currentipaddress: '192.0.2.1',
  newipaddress: '192.0.2.2',
  lockstatus: 'locked',
  status: '1',
  transfertag: 'OTHER-REGISTRAR',
  contactdetails: {
    Registrant: {
      'First Name': 'Ada',
      'Last Name': 'Lovelace',
      'Email Address': 'ada@example.com',
      'Address 1': '1 Analytical Row',
      City: 'London',
      Postcode: 'N1 1AA',
      Country: 'GB',
      'Phone Number': '+44.2000000000',
    },
  },
  prefix: ['info'],
  forwardto: ['me@example.net'],
});

/** Every route that acts on a domain the reseller must hold: the {domain} routes, and renew (domain in the body). */
const DOMAIN_ROUTES = ROUTES.filter((r) => r.path.includes(':domain') || r.path === '/order/domains/renew');

describe('ownership on every route that acts on a held domain', () => {
  let h: Harness;
  const lookups: string[] = [];
  beforeAll(async () => {
    h = await startHarness();
    await h.module.services.resellers.create('other@example.com', 'default', 0);
    // Every registrar call starts by finding the plugin; recording the lookups proves none was made.
    const registry = h.module.registrars;
    const find = registry.get.bind(registry);
    registry.get = (id: string) => {
      lookups.push(id);
      return find(id);
    };
  });
  afterAll(async () => {
    await h.close();
  });

  it('covers every domain-management route of the table', () => {
    expect(DOMAIN_ROUTES.length).toBeGreaterThanOrEqual(20);
  });

  it.each(DOMAIN_ROUTES.map((r, i) => [r.method.toUpperCase(), r.path, r, i] as const))(
    "%s %s answers another reseller's domain exactly as a domain nobody has, without asking the registrar",
    async (_method, _path, r, i) => {
      const name = `ownership-${i}.com`;
      const missing = await call(h, r, name, validBody(name));
      await givenDomain(h.module, name, { owner: 'other@example.com' });
      const before = await platformRecord(h.module, name);
      lookups.length = 0;

      const foreign = await call(h, r, name, validBody(name));

      expect(missing.status).toBe(409);
      expect(missing.body).toEqual({ error: `The domain ${name} is not in your account` });
      expect(foreign.status).toBe(409);
      expect(foreign.body).toEqual(missing.body);
      expect(foreign.headers['content-type']).toBe(missing.headers['content-type']);
      expect(lookups).toEqual([]);
      expect(await platformRecord(h.module, name)).toEqual(before);

      // The same request on the caller's own domain gets past validation: only ownership stopped it above.
      const mine = `mine-${i}.com`;
      await givenDomain(h.module, mine);
      const own = await call(h, r, mine, validBody(mine));
      expect([400, 409].includes(own.status) ? own.body : 'past validation and ownership').toBe(
        'past validation and ownership',
      );
    },
  );
});
