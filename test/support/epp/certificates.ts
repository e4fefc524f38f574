import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
  /** A folder of its own holding the PEM files (for options that take files), removed by `remove()`. */
  readonly dir: string;
  readonly ca: string;
  readonly serverCert: string;
  readonly serverKey: string;
  readonly clientCert: string;
  readonly clientKey: string;
  /** A CA that signed nothing here: a client trusting only it must refuse the server. */
  readonly otherCa: string;
  /** A client certificate from that other CA: the server must refuse it. */
  readonly strangerCert: string;
  readonly strangerKey: string;
  remove(): void;
}

const FIXTURES = path.resolve(__dirname, '..', '..', 'fixtures', 'epp-certificates');

/**
 * A CA, a server certificate for localhost/127.0.0.1 and client certificates: the fixed test set in
 * test/fixtures/epp-certificates (made once with openssl, so the tests need no openssl), copied
 * into a folder of the caller's own.
 */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'epp-certs-'));
  cpSync(FIXTURES, dir, { recursive: true });
  const read = (file: string) => readFileSync(path.join(dir, file), 'utf8');
  return {
    dir,
    ca: read('test-ca.crt'),
    serverCert: read('server.crt'),
    serverKey: read('server.key'),
    clientCert: read('client.crt'),
    clientKey: read('client.key'),
    otherCa: read('other-ca.crt'),
    strangerCert: read('stranger.crt'),
    strangerKey: read('stranger.key'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
}
