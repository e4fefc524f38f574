import { startHarness, type Harness } from '../support/harness';
import { form, REGISTRANT, registerForm, WHMCS_REGISTRANT as SHOWN_REGISTRANT } from '../support/wire';

/** Every standard field, by the billing platform's display names, empty: what an unset contact looks like. */
const EMPTY = {
  'First Name': '',
  'Last Name': '',
  'Company Name': '',
  'Email Address': '',
  'Address 1': '',
  'Address 2': '',
  City: '',
  State: '',
  Postcode: '',
  Country: '',
  'Phone Number': '',
};

/** A WHMCS module's registrant: every field of its contact form, the unused ones sent empty. */
const WHMCS_REGISTRANT = { ...REGISTRANT, companyname: '', address2: '', state: '' };

/** The same contact as a Blesta module names the fields. */
const BLESTA_REGISTRANT = {
  first_name: 'Ada',
  last_name: 'Lovelace',
  company: 'Analytical Engines Ltd',
  email: 'ada@example.com',
  address1: '1 Analytical Row',
  city: 'London',
  zip: 'N1 1AA',
  country: 'GB',
  phone: '+44.2070000000',
};

/** The shared registrant as the contacts routes show it, every other standard field empty. */
const SHOWN_ADA = { ...EMPTY, ...SHOWN_REGISTRANT };

describe('contacts as billing modules send and read them', () => {
  let h: Harness;
  const post = (path: string, body: Record<string, unknown> | string) =>
    h.http
      .post(path)
      .set(h.headers())
      .type('form')
      .send(typeof body === 'string' ? body : form(body));
  const get = (path: string) => h.http.get(path).set(h.headers());
  const register = (domain: string, contacts: unknown, extra = '') =>
    post('/order/domains/register', registerForm(domain, { contacts }) + extra);
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  describe('GET /domains/{domain}/contact', () => {
    it('shows every role with the full standard field set, empty fields as empty strings', async () => {
      const ordered = await register('contacts-empty-fields.com', { Registrant: WHMCS_REGISTRANT });
      expect(ordered.status).toBe(200);
      const res = await get('/domains/contacts-empty-fields.com/contact');
      expect(res.status).toBe(200);
      expect(res.body).toEqual({ Registrant: SHOWN_ADA, Admin: EMPTY, Technical: EMPTY, Billing: EMPTY });
    });

    it('keeps an empty Address 2 and Company Name after a contact save', async () => {
      await register('contacts-saved-empty.com', { Registrant: WHMCS_REGISTRANT });
      const saved = await post('/domains/contacts-saved-empty.com/contact', {
        contactdetails: { Registrant: { ...SHOWN_ADA, 'Company Name': '', 'Address 2': '' } },
      });
      expect(saved.status).toBe(200);
      const res = await get('/domains/contacts-saved-empty.com/contact');
      expect(res.body.Registrant).toEqual(SHOWN_ADA);
      expect(Object.keys(res.body.Registrant)).toEqual(Object.keys(EMPTY));
    });

    it('takes back unchanged what it showed, empty roles included', async () => {
      await register('contacts-round-trip.com', { Registrant: WHMCS_REGISTRANT });
      const shown = (await get('/domains/contacts-round-trip.com/contact')).body;
      const saved = await post('/domains/contacts-round-trip.com/contact', { contactdetails: shown });
      expect(saved.status).toBe(200);
      expect(saved.body).toBe('success');
      expect((await get('/domains/contacts-round-trip.com/contact')).body).toEqual(shown);
    });
  });

  describe('one table of field spellings on every path', () => {
    it('registers with a Blesta registrant (company, zip, phone)', async () => {
      const res = await register('contacts-blesta.com', { registrant: BLESTA_REGISTRANT });
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect((await get('/domains/contacts-blesta.com/contact')).body.Registrant).toEqual({
        ...SHOWN_ADA,
        'Company Name': 'Analytical Engines Ltd',
      });
    });

    it('registers with camelCase and snake_case fields', async () => {
      const res = await register('contacts-camel.com', {
        Registrant: {
          firstName: 'Ada',
          last_name: 'Lovelace',
          emailAddress: 'ada@example.com',
          address_1: '1 Analytical Row',
          city: 'London',
          postCode: 'N1 1AA',
          country: 'GB',
          phoneNumber: '+44.2070000000',
        },
      });
      expect(res.status).toBe(200);
      expect((await get('/domains/contacts-camel.com/contact')).body.Registrant).toEqual(SHOWN_ADA);
    });

    it('saves contacts with Blesta names through POST contact', async () => {
      await register('contacts-blesta-save.com', { Registrant: WHMCS_REGISTRANT });
      const saved = await post('/domains/contacts-blesta-save.com/contact', {
        contactdetails: { Registrant: { ...BLESTA_REGISTRANT, phone: '+44.2079999999' } },
      });
      expect(saved.status).toBe(200);
      expect((await get('/domains/contacts-blesta-save.com/contact')).body.Registrant).toEqual({
        ...SHOWN_ADA,
        'Company Name': 'Analytical Engines Ltd',
        'Phone Number': '+44.2079999999',
      });
    });

    it('refuses two spellings of one field with different values', async () => {
      const res = await register('contacts-twice.com', {
        Registrant: { ...WHMCS_REGISTRANT, phone: '+1.5550000000' },
      });
      expect(res.status).toBe(400);
      expect(res.body).toEqual({ error: 'contacts.registrant.phonenumber is given twice with different values' });
    });
  });

  describe('an empty role is absent', () => {
    it('registers when contacts[tech] comes as a bare key without fields', async () => {
      const res = await register('contacts-bare-tech.com', { Registrant: WHMCS_REGISTRANT }, '&contacts%5Btech%5D');
      expect(res.status).toBe(200);
      expect(res.body).toBe('success');
      expect((await get('/domains/contacts-bare-tech.com/contact')).body).toEqual({
        Registrant: SHOWN_ADA,
        Admin: EMPTY,
        Technical: EMPTY,
        Billing: EMPTY,
      });
    });

    it('registers when an admin role comes with every field empty', async () => {
      const res = await register('contacts-empty-admin.com', {
        Registrant: WHMCS_REGISTRANT,
        Admin: { firstname: '', lastname: '', email: '' },
      });
      expect(res.status).toBe(200);
    });

    it('registers from JSON with a null role', async () => {
      const res = await h.http
        .post('/order/domains/register')
        .set(h.headers())
        .send({
          domain: 'contacts-null-role.com',
          regperiod: '1',
          nameservers: { ns1: 'ns1.example.net', ns2: 'ns2.example.net' },
          contacts: { Registrant: WHMCS_REGISTRANT, Tech: null },
        });
      expect(res.status).toBe(200);
    });

    it('refuses a contact save whose roles are all empty', async () => {
      await register('contacts-save-empty.com', { Registrant: WHMCS_REGISTRANT });
      const res = await post('/domains/contacts-save-empty.com/contact', 'contactdetails%5BRegistrant%5D=');
      expect(res.status).toBe(400);
      expect(res.body).toEqual({
        error: 'contactdetails must hold at least one contact (Registrant, Admin, Tech or Billing)',
      });
    });
  });
});
