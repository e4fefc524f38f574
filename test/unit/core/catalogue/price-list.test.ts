import { parsePriceList } from '../../../../src/core/catalogue/catalogue-service';

describe('parsePriceList', () => {
  it('reads years=price pairs', () => {
    expect([...parsePriceList('1=10.00, 2=19.50,10=90', 'register')]).toEqual([
      [1, 1000],
      [2, 1950],
      [10, 9000],
    ]);
  });

  it.each([
    ['', /at least one/],
    ['1=10,1=12', /twice/],
    ['0=10', /1 to 10/],
    ['11=10', /1 to 10/],
    ['1:10', /years=price/],
    ['1=-5', /negative/],
    ['1=abc', /decimal/],
  ])('refuses %s', (text, message) => {
    expect(() => parsePriceList(text, 'register')).toThrow(message);
  });
});
