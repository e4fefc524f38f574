import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const manifest = (file: string) =>
  JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };

/** What npm runs of a package's own scripts on `npm ci` / `npm install` in its folder. */
const INSTALL_SCRIPTS = ['preinstall', 'install', 'postinstall', 'prepublish', 'preprepare', 'prepare', 'postprepare'];

describe('the package manifests', () => {
  it.each(['package.json', 'packages/client/package.json'])(
    '%s runs nothing on install, so `npm ci --omit=dev` needs no dev dependency',
    (file) => {
      const scripts = manifest(file).scripts ?? {};
      expect(INSTALL_SCRIPTS.filter((name) => name in scripts)).toEqual([]);
    },
  );

  it('gives the client SDK package no dependencies', () => {
    const client = manifest('packages/client/package.json');
    expect(client.dependencies ?? {}).toEqual({});
  });

  it('ships the @types packages its published declarations import as dependencies', () => {
    const { dependencies = {}, devDependencies = {} } = manifest('package.json');
    expect(Object.keys(dependencies)).toContain('@types/koa');
    expect(Object.keys(devDependencies)).not.toContain('@types/koa');
  });
});
