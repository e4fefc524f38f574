import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export interface TestCertificates {
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

function openssl(args: string[], cwd: string): void {
  try {
    execFileSync('openssl', args, { cwd, stdio: ['ignore', 'ignore', 'pipe'] });
  } catch (error) {
    const stderr = (error as { stderr?: Buffer }).stderr?.toString() ?? '';
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error('the EPP tests need the openssl command line tool to make their TLS certificates');
    throw new Error(`openssl ${args[0]} failed: ${stderr}`);
  }
}

/** A throw-away CA, a server certificate for localhost/127.0.0.1 and client certificates, made with the openssl CLI. */
export function makeTestCertificates(): TestCertificates {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'epp-certs-'));
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  const makeCa = (name: string) =>
    openssl(
      ['req', '-x509', ...ec, '-keyout', `${name}.key`, '-out', `${name}.crt`, '-days', '2', '-subj', `/CN=${name}`],
      dir,
    );
  const issue = (name: string, ca: string, cn: string, ext: string) => {
    openssl(['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${cn}`], dir);
    writeFileSync(path.join(dir, `${name}.ext`), ext);
    openssl(
      [
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        `${ca}.crt`,
        '-CAkey',
        `${ca}.key`,
        '-CAcreateserial',
        '-out',
        `${name}.crt`,
        '-days',
        '2',
        '-extfile',
        `${name}.ext`,
      ],
      dir,
    );
  };
  makeCa('test-ca');
  makeCa('other-ca');
  issue('server', 'test-ca', 'localhost', 'subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n');
  issue('client', 'test-ca', 'registrar-a', 'extendedKeyUsage=clientAuth\n');
  issue('stranger', 'other-ca', 'stranger', 'extendedKeyUsage=clientAuth\n');
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
