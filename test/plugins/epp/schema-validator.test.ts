import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import * as frames from '../../../plugins/epp/src/frames';
import { NS } from '../../../plugins/epp/src/xml';
import { validateEpp } from '../../support/epp/xml-schema';

// The EPP tests validate frames with libxml2 compiled to WebAssembly: no program is looked up on the PATH.
describe('the EPP schema validator', () => {
  const originalPath = process.env.PATH;
  let empty: string;
  beforeAll(() => {
    empty = mkdtempSync(path.join(os.tmpdir(), 'no-programs-'));
    process.env.PATH = empty;
  });
  afterAll(() => {
    process.env.PATH = originalPath;
    rmSync(empty, { recursive: true, force: true });
  });

  const login = (password: string) =>
    frames.loginFrame(
      { clientId: 'registrar-a', password, language: 'en', objectUris: [NS.domain], extensionUris: [] },
      'trid-login',
    );

  it('passes valid frames and names what is wrong in invalid ones, with no xmllint program on the PATH', async () => {
    const [hello, sixteen, seventeen, broken] = await Promise.all([
      validateEpp(frames.helloFrame()),
      validateEpp(login('a'.repeat(16))),
      validateEpp(login('a'.repeat(17))),
      validateEpp('<epp xmlns="urn:ietf:params:xml:ns:epp-1.0"><hello>'),
    ]);
    expect(hello).toBeUndefined();
    expect(sixteen).toBeUndefined();
    expect(seventeen).toMatch(
      /^line 1: Schemas validity error : Element '\{urn:ietf:params:xml:ns:epp-1.0\}pw': \[facet 'maxLength'\]/,
    );
    expect(broken).toMatch(/^line 1: parser error/);
  });

  it('validates a password over 16 characters carried by loginSec (RFC 8807)', async () => {
    const frame = frames.loginFrame(
      {
        clientId: 'registrar-a',
        password: 'a'.repeat(40),
        newPassword: 'b'.repeat(40),
        language: 'en',
        objectUris: [NS.domain],
        extensionUris: [NS.loginSec],
      },
      'trid-login',
    );
    expect(frame).toContain('<pw>[LOGIN-SECURITY]</pw>');
    await expect(validateEpp(frame)).resolves.toBeUndefined();
  });
});
