import { execFile } from 'node:child_process';
import { once } from 'node:events';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { fixedClock } from '../../src/core/common/clock';
import { builtPackage } from '../support/built-package';
import { startHarness, type Harness } from '../support/harness';
import { TEST_ENGINE } from '../support/test-database';

const ROOT = path.resolve(__dirname, '../..');
const execFileAsync = promisify(execFile);

/**
 * npm as a user runs it, but from npm's cache where it can (CI reaches only the npm registry), with
 * install scripts skipped (the platform's native SQLite driver is not needed to compile against it
 * or to run the kit), quietly.
 */
const NPM_ENV: NodeJS.ProcessEnv = {
  ...process.env,
  npm_config_prefer_offline: 'true',
  npm_config_ignore_scripts: 'true',
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
  npm_config_loglevel: 'error',
};

async function sh(script: string, cwd: string, env: NodeJS.ProcessEnv = NPM_ENV): Promise<string> {
  try {
    return (await execFileAsync('bash', ['-ec', script], { cwd, env, maxBuffer: 16 * 1024 * 1024 })).stdout;
  } catch (error) {
    const failed = error as { stdout?: string; stderr?: string; message: string };
    throw new Error(`${script}\nfailed: ${failed.message}\n${failed.stdout ?? ''}\n${failed.stderr ?? ''}`);
  }
}

const PLUGIN_GUIDE = () => readFileSync(path.join(ROOT, 'docs/plugins.md'), 'utf8');

/** The files docs/plugins.md shows under `<!-- guide-file: acme-ts/… -->`, exactly as shown. */
function writeGuideFiles(into: string): void {
  for (const match of PLUGIN_GUIDE().matchAll(/<!-- guide-file: acme-ts\/(\S+) -->\n```\w*\n([\s\S]*?)\n```/g)) {
    const target = path.join(into, match[1]!);
    mkdirSync(path.dirname(target), { recursive: true });
    writeFileSync(target, `${match[2]!}\n`);
  }
}

/** The commands docs/plugins.md shows under `<!-- guide-commands: NAME -->`, exactly as shown. */
function guideCommands(name: string): string {
  const match = new RegExp(`<!-- guide-commands: ${name} -->\\n\`\`\`sh\\n([\\s\\S]*?)\\n\`\`\``).exec(PLUGIN_GUIDE());
  if (!match) throw new Error(`docs/plugins.md has no guide-commands ${name}`);
  return match[1]!;
}

/**
 * Issue 31, item 3: what the docs call the packages, made as a release makes them (`npm pack`) and
 * installed from those tarballs into projects of their own: the TypeScript plugin recipe of
 * docs/plugins.md, as written, builds against the platform's tarball, passes the conformance kit
 * and deploys; the SDK's tarball runs in a project made by `npm init -y`; the SDK installed from
 * its source folder says what to do instead of failing obscurely. Engine-independent: runs once.
 */
(TEST_ENGINE === 'sqlite' ? describe : describe.skip)('the packages, installed from their packed tarballs', () => {
  let scratch: string;
  let platformTarball: string;
  beforeAll(async () => {
    const built = await builtPackage();
    scratch = mkdtempSync(path.join(os.tmpdir(), 'packed-packages-'));
    // The build's folder holds what `npm pack` packs (its prepack is the build, done already).
    const [packed] = JSON.parse(await sh(`npm pack --json --pack-destination ${scratch}`, built)) as Array<{
      filename: string;
    }>;
    platformTarball = path.join(scratch, packed!.filename);
  }, 300_000);
  afterAll(() => {
    rmSync(scratch, { recursive: true, force: true });
  });

  it('builds the TypeScript plugin recipe against the platform tarball; it passes the conformance kit, packed and deployed as written', async () => {
    // Its folder is named by its id, as the guide says (the kit checks it as the loader does).
    const project = path.join(scratch, 'acme-ts');
    writeGuideFiles(project);
    await sh(guideCommands('acme-ts/build').replaceAll('/path/to/domain-reseller-0.1.0.tgz', platformTarball), project);
    expect(existsSync(path.join(project, 'dist/index.js'))).toBe(true);
    expect(JSON.parse(readFileSync(path.join(project, 'package.json'), 'utf8')).devDependencies).toEqual({
      typescript: '^5.9.0',
    });

    const deployment = path.join(scratch, 'srv');
    await sh(guideCommands('acme-ts/deploy').replaceAll('/srv/reseller', deployment), project);
    const deployed = path.join(deployment, 'registrar-plugins/acme-ts');
    expect(existsSync(path.join(deployed, 'dist/index.js'))).toBe(true);
    // The peer is left to the running platform: nothing was installed beside the plugin.
    expect(existsSync(path.join(deployed, 'node_modules/domain-reseller'))).toBe(false);

    // The kit as docs/plugins.md shows it, from the installed platform, on the project and on the deployed folder.
    const kit = (folder: string) => `
      const { formatConformanceReport, runConformanceKit } = require('domain-reseller');
      runConformanceKit({ folder: ${JSON.stringify(folder)}, options: { reserved: 'www.shop' }, timeoutMs: 30000 })
        .then((report) => { console.log(JSON.stringify({ passed: report.passed, text: formatConformanceReport(report) })); });`;
    for (const folder of [project, deployed]) {
      writeFileSync(path.join(project, 'kit.js'), kit(folder));
      const report = JSON.parse(await sh('node kit.js', project)) as { passed: boolean; text: string };
      if (!report.passed)
        throw new Error(`the recipe's plugin fails the conformance kit in ${folder}:\n${report.text}`);
    }
  }, 300_000);

  describe('the client SDK', () => {
    let h: Harness;
    /** The parts of a clone the SDK is built from, with the clone's installed dependencies: a fresh copy per test. */
    const cloneCopy = (name: string): string => {
      const clone = path.join(scratch, name);
      for (const part of ['tsconfig.json', 'scripts/build-client.js', 'src/client', 'packages/client'])
        cpSync(path.join(ROOT, part), path.join(clone, part), {
          recursive: true,
          filter: (source) => !source.includes(`${path.sep}dist`),
        });
      symlinkSync(path.join(ROOT, 'node_modules'), path.join(clone, 'node_modules'), 'dir');
      return clone;
    };
    beforeAll(async () => {
      h = await startHarness({ clock: fixedClock(new Date()) });
      if (!h.server.listening) await once(h.server, 'listening');
    });
    afterAll(async () => {
      await h.close();
    });

    it('runs from its packed tarball in a project made by `npm init -y`, with nothing else installed', async () => {
      // `npm pack` builds it first (prepack), as a release does.
      const [packed] = JSON.parse(
        await sh(
          `npm pack --json --pack-destination ${scratch}`,
          path.join(cloneCopy('clone-packed'), 'packages/client'),
          {
            ...NPM_ENV,
            npm_config_ignore_scripts: 'false',
          },
        ),
      ) as Array<{ filename: string }>;
      const app = path.join(scratch, 'sdk-app');
      mkdirSync(app);
      await sh(`npm init -y >/dev/null && npm install ${path.join(scratch, packed!.filename)}`, app);
      const { port } = h.server.address() as AddressInfo;
      writeFileSync(
        path.join(app, 'index.js'),
        `const { ResellerClient } = require('domain-reseller-client');
async function main() {
  const client = new ResellerClient({ baseUrl: 'http://127.0.0.1:${port}', email: process.env.EMAIL, apiKey: process.env.RESELLER_API_KEY });
  console.log(JSON.stringify([await client.credits(), await client.tlds()]));
}
main();
`,
      );
      writeFileSync(
        path.join(app, 'index.mjs'),
        `import { ResellerClient } from 'domain-reseller-client';
const client = new ResellerClient({ baseUrl: 'http://127.0.0.1:${port}', email: process.env.EMAIL, apiKey: process.env.RESELLER_API_KEY });
console.log(JSON.stringify(await client.credits()));
`,
      );
      h.clock.set(new Date());
      const env = { ...process.env, EMAIL: h.reseller.email, RESELLER_API_KEY: h.reseller.apiKey };
      expect(JSON.parse(await sh('node index.js', app, env))).toEqual(['100.00', ['.com', '.net', '.org']]);
      expect(JSON.parse(await sh('node index.mjs', app, env))).toBe('100.00');
    }, 180_000);

    it('says how to get a working copy when installed from its source folder, and works once built there', async () => {
      const source = path.join(cloneCopy('clone-linked'), 'packages/client');
      const app = path.join(scratch, 'path-app');
      mkdirSync(app);
      await sh(`npm init -y >/dev/null && npm install ${source}`, app);
      const probe = `node -e "require('domain-reseller-client')"`;
      await expect(sh(probe, app)).rejects.toThrow(
        `domain-reseller-client at ${source} has no dist/: it was installed from its source folder`,
      );
      await sh('npm run build', source, { ...NPM_ENV, npm_config_ignore_scripts: 'false' });
      await sh(probe, app);
    }, 180_000);
  });
});
