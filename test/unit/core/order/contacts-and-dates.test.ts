import {
  assertCompleteRegistrant,
  contactFieldName,
  contactRole,
  normaliseContact,
} from '../../../../src/core/order/contacts';
import { addYears, isIsoDate } from '../../../../src/core/order/dates';

describe('contact fields', () => {
  it.each([
    ['First Name', 'firstname'],
    ['first_name', 'firstname'],
    ['Email Address', 'email'],
    ['Address 1', 'address1'],
    ['Phone_Number', 'phonenumber'],
    ['tax_id', 'tax_id'],
    ['Company Name', 'companyname'],
    ['Phone Country Code', 'phonecountrycode'],
  ])('folds "%s" to "%s"', (raw, name) => {
    expect(contactFieldName(raw)).toBe(name);
  });

  it.each([
    ['Registrant', 'registrant'],
    ['registrant', 'registrant'],
    ['Technical', 'tech'],
    ['tech', 'tech'],
    ['Billing', 'billing'],
    ['Owner', undefined],
  ])('maps the contact type %s to %s', (raw, role) => {
    expect(contactRole(raw)).toBe(role);
  });

  it('normalises country and email case and drops empty fields', () => {
    expect(normaliseContact({ Country: 'de', 'Email Address': 'A@B.DE', State: '' }, 'c')).toEqual({
      country: 'DE',
      email: 'a@b.de',
    });
  });

  it('refuses two spellings of one field with different values', () => {
    expect(() => normaliseContact({ firstname: 'Ada', 'First Name': 'Grace' }, 'contacts.registrant')).toThrow(
      'contacts.registrant.firstname is given twice with different values',
    );
    expect(normaliseContact({ firstname: 'Ada', 'First Name': 'Ada' }, 'c')).toEqual({ firstname: 'Ada' });
  });

  it('accepts a full name instead of first and last, and checks the country code', () => {
    const base = {
      fullname: 'Ada Lovelace',
      email: 'a@b.co',
      address1: 'x',
      city: 'y',
      postcode: 'z',
      phonenumber: '1',
    };
    expect(() => assertCompleteRegistrant({ ...base, country: 'GB' })).not.toThrow();
    expect(() => assertCompleteRegistrant({ ...base, country: 'UK' })).toThrow(/ISO 3166 alpha-2/);
    expect(() => assertCompleteRegistrant({ ...base, country: 'GB', email: 'nope' })).toThrow(/email is not a valid/);
  });
});

describe('dates', () => {
  it('adds whole years, with 29 February falling back to 28 February', () => {
    expect(addYears('2026-11-21', 2)).toBe('2028-11-21');
    expect(addYears('2028-02-29', 1)).toBe('2029-02-28');
    expect(addYears('2028-02-29', 4)).toBe('2032-02-29');
  });

  it('accepts only real calendar dates', () => {
    expect(isIsoDate('2027-02-28')).toBe(true);
    expect(isIsoDate('2027-02-30')).toBe(false);
    expect(isIsoDate('2027-2-3')).toBe(false);
    expect(isIsoDate(undefined)).toBe(false);
  });
});
