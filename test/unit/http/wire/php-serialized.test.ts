import { decodeDomainFields } from '../../../../src/http/wire/php-serialized';

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');
const errorOf = (input: string) => {
  try {
    decodeDomainFields(input);
  } catch (error) {
    return (error as Error).message;
  }
  return 'no error';
};

describe('decodeDomainFields', () => {
  it('reads every plain PHP value type, keys as text', () => {
    const fields = decodeDomainFields(
      b64('a:6:{s:1:"s";s:3:"abc";s:1:"i";i:-42;s:1:"d";d:1.5E+2;s:1:"t";b:1;s:1:"n";N;i:7;a:1:{i:0;b:0;}}'),
    );
    expect(fields).toEqual({ s: 'abc', i: -42, d: 150, t: true, n: null, 7: { 0: false } });
    expect(Object.getPrototypeOf(fields)).toBeNull();
  });

  it('counts string lengths in UTF-8 bytes, as PHP does', () => {
    expect(decodeDomainFields(b64('a:1:{i:0;s:6:"€uro";}'))).toEqual({ 0: '€uro' });
    expect(errorOf(b64('a:1:{i:0;s:4:"€uro";}'))).toMatch(/expected """/);
  });

  it('treats an empty value and an empty array as no fields', () => {
    expect(decodeDomainFields('')).toEqual({});
    expect(decodeDomainFields(b64('a:0:{}'))).toEqual({});
  });

  it('accepts base64 whose "+" a sloppy form encoder turned into spaces', () => {
    const encoded = b64('a:1:{s:1:"k";s:3:"~~~";}');
    expect(encoded).toContain('+');
    expect(decodeDomainFields(encoded.replace(/\+/g, ' '))).toEqual({ k: '~~~' });
  });

  it.each([
    ['objects', 'a:1:{i:0;O:8:"stdClass":1:{s:1:"a";i:1;}}', /objects are refused/],
    ['an object at the top', 'O:8:"stdClass":0:{}', /top level must be an array/],
    ['custom-serialized objects', 'a:1:{i:0;C:3:"Foo":0:{}}', /objects are refused/],
    ['enums', 'a:1:{i:0;E:7:"Foo:Bar";}', /objects are refused/],
    ['references', 'a:2:{i:0;i:1;i:1;r:2;}', /references are refused/],
    ['a prototype key', 'a:1:{s:9:"__proto__";i:1;}', /not allowed/],
    ['a duplicate key', 'a:2:{i:0;i:1;i:0;i:2;}', /appears twice/],
    ['a float key', 'a:1:{d:1.5;i:1;}', /keys must be integers or strings/],
    ['infinity', 'a:1:{i:0;d:INF;}', /finite/],
    ['an oversized integer', 'a:1:{i:0;i:99999999999999999;}', /53 bits|not an integer/],
    ['a truncated document', 'a:2:{i:0;i:1;', /ends too early|expected/],
    ['a lying element count', 'a:5:{i:0;i:1;}', /integers or strings|expected/],
    ['deep nesting', 'a:1:{i:0;a:1:{i:0;a:1:{i:0;a:1:{i:0;a:0:{}}}}}', /nested more than 4/],
    ['too many elements', 'a:501:{}', /more than 500 elements/],
    ['invalid UTF-8', 'a:1:{i:0;s:1:"\u00ff";}', /expected|UTF-8/],
  ])('refuses %s', (_label, serialized, message) => {
    expect(errorOf(b64(serialized))).toMatch(message);
  });

  it('refuses text that is not base64, and more than 16 KiB', () => {
    expect(errorOf('not base64!')).toMatch(/not base64/);
    expect(errorOf(b64(`a:1:{i:0;s:17000:"${'x'.repeat(17000)}";}`))).toMatch(/larger than 16 KiB/);
  });

  it('always names the field in its message', () => {
    expect(errorOf('%%%')).toMatch(/^domainfields is not a base64 PHP-serialized array: /);
  });
});
