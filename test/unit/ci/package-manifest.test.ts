import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../../..');
const manifest = (file: string) =>
  JSON.parse(readFileSync(path.join(ROOT, file), 'utf8')) as {
    scripts?: Record<string, string>;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
    allowScripts?: Record<string, boolean>;
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

  it('names every installed dependency with an install script in allowScripts (npm 11 skips the ones it does not)', () => {
    const allowed = manifest('package.json').allowScripts ?? {};
    const withScripts = installScriptPackages(path.join(ROOT, 'node_modules'));
    // The scan finds what it must: the embedded driver builds in its install script.
    expect(withScripts).toContain('better-sqlite3');
    expect(withScripts.filter((name) => !(name in allowed))).toEqual([]);
    // The embedded driver is a native addon built on install: without its script there is no SQLite.
    expect(allowed['better-sqlite3']).toBe(true);
  });
});

/** The names of the installed packages (nested ones too) whose manifests declare an install-time script. */
function installScriptPackages(folder: string): string[] {
  if (!existsSync(folder)) return [];
  const found = new Set<string>();
  for (const entry of readdirSync(folder)) {
    if (entry.startsWith('.')) continue;
    const packages = entry.startsWith('@')
      ? readdirSync(path.join(folder, entry)).map((n) => `${entry}/${n}`)
      : [entry];
    for (const name of packages) {
      const dir = path.join(folder, name);
      const file = path.join(dir, 'package.json');
      if (!existsSync(file)) continue;
      const { scripts = {} } = JSON.parse(readFileSync(file, 'utf8')) as { scripts?: Record<string, string> };
      if (['preinstall', 'install', 'postinstall'].some((script) => script in scripts)) found.add(name);
      for (const nested of installScriptPackages(path.join(dir, 'node_modules'))) found.add(nested);
    }
  }
  return [...found].sort();
}
