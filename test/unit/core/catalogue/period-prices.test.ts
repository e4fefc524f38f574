import { addonPricesProblem, periodPricesProblem } from '../../../../src/core/catalogue/catalogue';

describe('the prices a TLD and a group may be given', () => {
  it('accepts periods of 1 to 10 years at prices from zero', () => {
    expect(periodPricesProblem('register', { 1: 0, 2: 1950, 10: 9000 })).toBeUndefined();
  });

  it.each([
    [{}, 'register needs a price for at least one period'],
    [{ 0: 1000 }, 'register: periods are 1 to 10 years; got 0'],
    [{ 11: 1000 }, 'register: periods are 1 to 10 years; got 11'],
    [{ 1: -1 }, 'register: the price for 1 years must be a whole number of minor units, not negative'],
    [{ 1: 10.5 }, 'register: the price for 1 years must be a whole number of minor units, not negative'],
  ])('refuses %p', (prices, problem) => {
    expect(periodPricesProblem('register', prices)).toBe(problem);
  });

  it('accepts known addons at prices from zero and refuses others', () => {
    expect(addonPricesProblem({ idprotection: 200, dnsmanagement: 0 })).toBeUndefined();
    expect(addonPricesProblem({ parking: 100 })).toBe(
      'unknown addon "parking"; addons are dnsmanagement, emailforwarding, idprotection',
    );
    expect(addonPricesProblem({ idprotection: -1 })).toBe(
      'idprotection: the yearly price must be a whole number of minor units, not negative',
    );
    expect(addonPricesProblem({})).toBe('give a yearly price for at least one addon');
  });
});
