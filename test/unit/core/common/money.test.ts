import { formatAmount, parseAmount } from '../../../../src/core/common/money';

describe('money', () => {
  it.each([
    ['10', 1000],
    ['10.5', 1050],
    ['10.50', 1050],
    ['0.01', 1],
    ['-3.25', -325],
    [' 7.00 ', 700],
    ['-0', 0],
  ])('parses %s exactly', (text, minor) => {
    expect(parseAmount(text)).toBe(minor);
  });

  it.each(['', 'abc', '1.234', '1e3', '1,00', '--1', '.5', '12345678901234'])('refuses %s', (text) => {
    expect(() => parseAmount(text)).toThrow(/decimal/);
  });

  it('formats minor units with two decimals', () => {
    expect(formatAmount(0)).toBe('0.00');
    expect(formatAmount(5)).toBe('0.05');
    expect(formatAmount(123456)).toBe('1234.56');
    expect(formatAmount(-1050)).toBe('-10.50');
  });

  it('never goes through floating point: 0.1 + 0.2 in cents is 0.30', () => {
    expect(formatAmount(parseAmount('0.1') + parseAmount('0.2'))).toBe('0.30');
  });
});
