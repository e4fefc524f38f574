import { parseAddonPrices, parsePeriodPrices } from '../../../src/cli/price-syntax';

describe('the CLI price syntax', () => {
  it('reads years=price pairs into minor units per period', () => {
    expect(parsePeriodPrices('1=10.00, 2=19.50,10=90', 'register')).toEqual({ 1: 1000, 2: 1950, 10: 9000 });
  });

  it('reads addon=yearly price pairs into minor units per addon', () => {
    expect(parseAddonPrices('IDProtection=2.00,dnsmanagement=0')).toEqual({ idprotection: 200, dnsmanagement: 0 });
  });

  it.each([
    ['', /--renew needs at least one "years=price" pair/],
    ['1=10,1=12', /--renew: period 1 is listed twice/],
    ['1:10', /--renew must look like "1=10.00,2=19.50" \(years=price\); got "1:10"/],
    ['1=abc', /--renew price for period 1 must be a decimal number/],
  ])('refuses the price list %p, naming the flag', (text, message) => {
    expect(() => parsePeriodPrices(text, 'renew')).toThrow(message);
  });

  it('leaves periods and amounts the catalogue refuses to the catalogue', () => {
    expect(parsePeriodPrices('11=10,1=-5', 'register')).toEqual({ 11: 1000, 1: -500 });
    expect(parseAddonPrices('parking=1.00')).toEqual({ parking: 100 });
  });
});
