import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import Module from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import request from 'supertest';
import { computeToken } from '../../src/core/auth/api-token';
import { builtPackage } from '../support/built-package';

const ROOT = path.resolve(__dirname, '../..');
const run = promisify(execFile);

/** The files docs/plugins.md shows under `<!-- guide-file: PATH -->`, exactly as shown. */
function guideFiles(): Map<string, string> {
  const guide = readFileSync(path.join(ROOT, 'docs/plugins.md'), 'utf8');
  const files = new Map<string, string>();
  for (const match of guide.matchAll(/<!-- guide-file: (\S+) -->\n```\w*\n([\s\S]*?)\n```/g))
    files.set(match[1]!, `${match[2]!}\n`);
  return files;
}

function writeGuideFiles(files: Map<string, string>, prefix: string, into: string): void {
  for (const [name, text] of files) {
    if (!name.startsWith(`${prefix}/`)) continue;
    const target = path.join(into, name.slice(prefix.length + 1));
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, text);
  }
}

/**
 * docs/plugins.md, "Your own plugin in a deployment, step by step", followed from an empty folder
 * against the built server: a JavaScript plugin folder, and a TypeScript plugin developed as its
 * own package (compiled against the built platform's published types), packed and unpacked into
 * the deployment's plugins folder. Both load in `node dist/src/main.js` and answer a search.
 */
describe('a plugin written as docs/plugins.md says', () => {
  let built: string;
  let deployment: string;
  let server: ChildProcess | undefined;
  beforeAll(async () => {
    built = await builtPackage();
    deployment = mkdtempSync(path.join(os.tmpdir(), 'plugin-guide-'));
  }, 300_000);
  afterAll(() => {
    if (server && server.exitCode === null) server.kill('SIGKILL');
    rmSync(deployment, { recursive: true, force: true });
  });

  it('loads in the built server, as a plugin folder and as a packed TypeScript package', async () => {
    const files = guideFiles();
    expect([...files.keys()].sort()).toEqual([
      'acme-ts/package.json',
      'acme-ts/src/index.ts',
      'acme-ts/tsconfig.json',
      'acme/index.js',
      'acme/package.json',
    ]);
    const plugins = path.join(deployment, 'registrar-plugins');

    // A plugin folder: make it, write its manifest and entry. Nothing is installed in it.
    mkdirSync(path.join(plugins, 'acme'), { recursive: true });
    writeGuideFiles(files, 'acme', path.join(plugins, 'acme'));

    // A package: its files; `npm install` brings the platform (here: the build) and TypeScript.
    const project = path.join(deployment, 'reseller-plugin-acme-ts');
    writeGuideFiles(files, 'acme-ts', project);
    mkdirSync(path.join(project, 'node_modules'));
    symlinkSync(built, path.join(project, 'node_modules', 'domain-reseller'));
    symlinkSync(path.join(ROOT, 'node_modules', 'typescript'), path.join(project, 'node_modules', 'typescript'));
    await run(process.execPath, [path.join(project, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], {
      cwd: project,
    }).catch((error: { stdout: string }) => {
      throw new Error(`the guide's TypeScript plugin does not compile:\n${error.stdout}`);
    });
    await run('npm', ['pack', '--silent', '--pack-destination', deployment], { cwd: project });
    // Unpacked into a folder named by its id. (Its `npm install --omit=dev --omit=peer` is skipped: it has no dependencies.)
    mkdirSync(path.join(plugins, 'acme-ts'));
    await run('tar', [
      '-xzf',
      path.join(deployment, 'reseller-plugin-acme-ts-1.0.0.tgz'),
      '-C',
      path.join(plugins, 'acme-ts'),
      '--strip-components=1',
    ]);

    // The operator's commands, with the built CLI.
    const env: NodeJS.ProcessEnv = { ...process.env, PLUGINS_DIR: plugins, LOG_LEVEL: 'warn' };
    for (const name of ['DATABASE_URL', 'MASTER_KEY', 'MASTER_KEY_FILE', 'CONFIG_FILE', 'SEED_DEMO', 'BASE_PATH'])
      delete env[name];
    const admin = async (...args: string[]) =>
      (await run(process.execPath, [path.join(built, 'dist/src/cli/main.js'), ...args], { cwd: deployment, env }))
        .stdout;
    await admin('migrate');
    await admin('group', 'create', 'default');
    await admin('tld', 'set', '.shop', '--group', 'default', '--registrar', 'acme', '--register', '1=5.00');
    await admin('tld', 'set', '.store', '--group', 'default', '--registrar', 'acme-ts', '--register', '1=5.00');
    const { apiKey } = JSON.parse(
      await admin('reseller', 'create', 'shop@example.com', '--group', 'default', '--credit', '100.00'),
    ) as { apiKey: string };

    server = spawn(process.execPath, [path.join(built, 'dist/src/main.js')], {
      cwd: deployment,
      env: { ...env, PORT: '0', METRICS_PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', BACKGROUND_JOBS: 'false' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    server.stdout!.on('data', (chunk) => {
      output += String(chunk);
    });
    server.stderr!.on('data', (chunk) => {
      output += String(chunk);
    });
    const port = await new Promise<number>((resolve, reject) => {
      server!.stdout!.on('data', () => {
        const port = /"port":(\d+),.*"msg":"domain reseller API listening"/.exec(output)?.[1];
        if (port) resolve(Number(port));
      });
      server!.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
    });
    const api = request(`http://127.0.0.1:${port}`);
    expect((await api.get('/readyz')).body).toEqual({ status: 'ready', checks: { database: 'ok', plugins: 'ok' } });
    const lookup = await api
      .post('/domains/lookup')
      .set({ username: 'shop@example.com', token: computeToken('shop@example.com', apiKey, new Date()) })
      .type('form')
      .send('searchTerm=hello&tldsToInclude[]=.shop&tldsToInclude[]=.store');
    expect(lookup.status).toBe(200);
    expect(lookup.body).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ domainName: 'hello.shop' }),
        expect.objectContaining({ domainName: 'hello.store' }),
      ]),
    );
  }, 240_000);

  it('is disabled by the built server, saying why, when the entry is TypeScript only; the rest keeps working', async () => {
    const plugins = path.join(deployment, 'typescript-only');
    mkdirSync(path.join(plugins, 'acme'), { recursive: true });
    const files = guideFiles();
    writeFileSync(
      path.join(plugins, 'acme', 'package.json'),
      files.get('acme/package.json')!.replace('index.js', 'index'),
    );
    writeFileSync(path.join(plugins, 'acme', 'index.ts'), files.get('acme-ts/src/index.ts')!);
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      PLUGINS_DIR: plugins,
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
    };
    for (const name of ['DATABASE_URL', 'MASTER_KEY', 'MASTER_KEY_FILE', 'CONFIG_FILE']) delete env[name];
    const started = spawn(process.execPath, [path.join(built, 'dist/src/main.js')], {
      cwd: plugins,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    try {
      await new Promise<void>((resolve, reject) => {
        started.stdout!.on('data', (chunk) => {
          output += String(chunk);
          if (output.includes('"msg":"domain reseller API listening"')) resolve();
        });
        started.once('exit', (code) => reject(new Error(`the server exited with ${code}:\n${output}`)));
      });
    } finally {
      started.kill('SIGKILL');
    }
    expect(output).toContain(
      'registrar plugin \\"acme\\" failed to load and is disabled: acme: entry \\"index\\" cannot be found: there is only TypeScript, which the built server (plain node) does not run',
    );
  }, 120_000);

  /**
   * Node 22.15+ and 24 answer `require('domain-reseller')` through module.registerHooks, Node 20 by
   * wrapping Module._resolveFilename (src/infra/plugins/platform-module.ts). The guide's plugin folder
   * is loaded by the built loader in plain node twice: as this Node does it, and with registerHooks
   * taken away, which forces the fallback. Both must come out the same.
   */
  it("answers require('domain-reseller') in a plugin folder alike with and without module.registerHooks", async () => {
    const plugins = path.join(realpathSync(deployment), 'either-path');
    const acme = path.join(plugins, 'acme');
    mkdirSync(acme, { recursive: true });
    writeGuideFiles(guideFiles(), 'acme', acme);
    writeFileSync(
      path.join(acme, 'probe.js'),
      "module.exports = { platform: require('domain-reseller'), client: require('domain-reseller/client'), resolved: require.resolve('domain-reseller') };\n",
    );
    writeFileSync(path.join(acme, 'probe.mjs'), "export { default } from 'domain-reseller';\n");
    mkdirSync(path.join(plugins, 'elsewhere'));
    writeFileSync(path.join(plugins, 'elsewhere', 'probe.js'), "require('domain-reseller');\n");
    const withoutHooks = path.join(plugins, 'without-register-hooks.js');
    writeFileSync(withoutHooks, "delete require('node:module').registerHooks;\n");

    const dist = (file: string) => JSON.stringify(path.join(built, 'dist/src', file));
    const script = `
      const Module = require('node:module');
      const resolveFilename = Module._resolveFilename;
      const hooks = typeof Module.registerHooks === 'function';
      const { loadPluginFolder } = require(${dist('infra/plugins/plugin-loader.js')});
      const { MemoryPluginStore } = require(${dist('testing/memory-plugin-store.js')});
      const logger = { debug() {}, info() {}, warn() {}, error() {}, child() { return logger; } };
      const host = () => ({ logger, clock: { now: () => new Date() }, store: new MemoryPluginStore() });
      (async () => {
        const loaded = await loadPluginFolder(${JSON.stringify(acme)}, {}, host);
        const probe = require(${JSON.stringify(path.join(acme, 'probe.js'))});
        const outside = (() => { try { require(${JSON.stringify(path.join(plugins, 'elsewhere', 'probe.js'))}); return 'loaded'; } catch (e) { return e.code; } })();
        const esm = await import(${JSON.stringify(path.join(acme, 'probe.mjs'))}).then((m) => m.default === probe.platform, (e) => e.code);
        console.log(JSON.stringify({
          path: hooks ? 'registerHooks' : 'fallback',
          wrapsResolveFilename: Module._resolveFilename !== resolveFilename,
          behaviour: {
            loaded: loaded.id,
            answers: await loaded.plugin.checkAvailability(['hello.shop']),
            platform: probe.platform === require(${dist('index.js')}),
            client: probe.client === require(${dist('client/index.js')}),
            resolved: probe.resolved,
            outside,
          },
          esm,
        }));
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const probe = async (...flags: string[]) =>
      JSON.parse((await run(process.execPath, [...flags, '-e', script], { cwd: plugins })).stdout) as {
        path: string;
        wrapsResolveFilename: boolean;
        behaviour: unknown;
        esm: unknown;
      };
    const asThisNodeDoes = await probe();
    const fallback = await probe('--require', withoutHooks);

    const hasRegisterHooks = typeof (Module as unknown as { registerHooks?: unknown }).registerHooks === 'function';
    expect(asThisNodeDoes).toMatchObject(
      hasRegisterHooks
        ? { path: 'registerHooks', wrapsResolveFilename: false }
        : { path: 'fallback', wrapsResolveFilename: true },
    );
    expect(fallback).toMatchObject({ path: 'fallback', wrapsResolveFilename: true });
    expect(asThisNodeDoes.behaviour).toEqual({
      loaded: 'acme',
      answers: [{ domain: 'hello.shop', status: 'available' }],
      platform: true,
      client: true,
      resolved: path.join(built, 'dist/src/index.js'),
      outside: 'MODULE_NOT_FOUND',
    });
    expect(fallback.behaviour).toEqual(asThisNodeDoes.behaviour);
    // Beyond the documented CommonJS entry: the hook also answers an ES module's import; the fallback cannot.
    expect(asThisNodeDoes.esm).toBe(hasRegisterHooks ? true : 'ERR_MODULE_NOT_FOUND');
    expect(fallback.esm).toBe('ERR_MODULE_NOT_FOUND');
  }, 120_000);
});
