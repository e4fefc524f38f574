import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';

/**
 * The RFC schemas: EPP_SCHEMAS_DIR, else the copy in test/fixtures/epp-schemas (so a clone tests
 * without anything beside it).
 * Missing schemas or a missing xmllint fail the run with a message saying what to install.
 */
export function eppSchemaFile(): string {
  const dir = process.env.EPP_SCHEMAS_DIR ?? path.resolve(__dirname, '..', '..', 'fixtures', 'epp-schemas');
  const file = path.join(dir, 'epp-all.xsd');
  if (!existsSync(file))
    throw new Error(`the EPP schemas are not at ${dir}; set EPP_SCHEMAS_DIR to the folder holding epp-all.xsd`);
  return file;
}

let checked = false;

export function assertXmllint(): void {
  if (checked) return;
  const probe = spawnSync('xmllint', ['--version']);
  if (probe.error)
    throw new Error(
      'xmllint is not installed; the EPP tests validate every frame with it: apt-get install -y libxml2-utils',
    );
  checked = true;
}

/** Validates one EPP instance; resolves to undefined when valid, else xmllint's complaint. */
export function validateEpp(xml: string, schema = eppSchemaFile()): Promise<string | undefined> {
  assertXmllint();
  return new Promise((resolve, reject) => {
    const child = spawn('xmllint', ['--noout', '--nonet', '--schema', schema, '-'], {
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.on('data', (c: Buffer) => {
      stderr += c.toString();
    });
    child.on('error', reject);
    child.on('close', (code) =>
      resolve(code === 0 ? undefined : stderr.replace(/^-:/gm, 'line ').trim() || `xmllint exited with ${code}`),
    );
    child.stdin.end(xml);
  });
}
