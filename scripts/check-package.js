// CI: what a consumer gets. Packs the platform and the client SDK as `npm publish` would, checks what
// the platform's tarball holds, installs both tarballs in a scratch project and type-checks, with
// strict settings and the declaration files checked too, a file that uses the module, the plugin
// contract and the SDK. Then installs the SDK alone: it must bring no dependency (no server, no
// native driver). Install scripts are skipped (types are all this needs); the npm cache is preferred.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');

const root = path.join(__dirname, '..');
const tsc = require.resolve('typescript/bin/tsc');
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'check-package-'));
const npm = (args, cwd) =>
  execFileSync('npm', [...args, '--no-audit', '--no-fund', '--loglevel=error'], { cwd, encoding: 'utf8' });
const fail = (message) => {
  console.error(`check-package: ${message}`);
  process.exit(1);
};

try {
  const [platform] = JSON.parse(npm(['pack', '--json', '--pack-destination', scratch], root));
  const [client] = JSON.parse(
    npm(['pack', '--json', '--pack-destination', scratch, '-w', 'domain-reseller-client'], root),
  );

  // Only what a consumer needs: the compiled package, the pages' templates and static files (read at
  // run time), its docs with their pictures, the license and the changelog.
  const files = platform.files.map((f) => f.path);
  const allowed =
    /^(package\.json|README\.md|LICENSE|CHANGELOG\.md|docs\/.+\.md|docs\/images\/[\w-]+\.png|dist\/(package\.json|(src|plugins|migrations)\/.+\.(js|d\.ts|json)|src\/web\/templates\/[\w/-]+\.eta|src\/web\/static\/[\w.-]+\.(css|js)))$/;
  const unexpected = files.filter((f) => !allowed.test(f));
  if (unexpected.length > 0) fail(`the tarball holds files a consumer does not need:\n  ${unexpected.join('\n  ')}`);
  for (const needed of [
    'LICENSE',
    'CHANGELOG.md',
    'dist/src/index.d.ts',
    'dist/src/main.js',
    'dist/plugins/sandbox/package.json',
    'dist/src/web/templates/console/dashboard.eta',
    'dist/src/web/static/web.css',
  ])
    if (!files.includes(needed)) fail(`the tarball lacks ${needed}`);
  console.log(`${platform.filename}: ${files.length} files; ${client.filename}: ${client.files.length} files`);

  const consumer = path.join(scratch, 'consumer');
  fs.mkdirSync(consumer);
  fs.writeFileSync(path.join(consumer, 'package.json'), JSON.stringify({ name: 'consumer', private: true }));
  npm(
    [
      'install',
      '--prefer-offline',
      '--ignore-scripts',
      path.join(scratch, platform.filename),
      path.join(scratch, client.filename),
    ],
    consumer,
  );
  const tsconfig = {
    compilerOptions: {
      target: 'ES2022',
      module: 'node16',
      moduleResolution: 'node16',
      strict: true,
      noEmit: true,
      skipLibCheck: false,
      noUncheckedIndexedAccess: true,
      exactOptionalPropertyTypes: true,
    },
    files: ['index.ts'],
  };
  fs.writeFileSync(path.join(consumer, 'tsconfig.json'), JSON.stringify(tsconfig, null, 2));
  fs.writeFileSync(
    path.join(consumer, 'index.ts'),
    `import Koa from 'koa';
import { createResellerModule, defineRegistrarPlugin, type RegistrarPlugin } from 'domain-reseller';
import { ResellerClient as BundledClient } from 'domain-reseller/client';
import { ResellerClient, apiToken } from 'domain-reseller-client';

export async function host(): Promise<Koa> {
  const module = await createResellerModule({ database: 'sqlite::memory:' });
  await module.migrate();
  const app = new Koa();
  app.use(module.middleware({ prefix: '/reseller-api' }));
  return app;
}

export default defineRegistrarPlugin<{ readonly region: string }>({
  id: 'consumer',
  apiVersion: 1,
  parseOptions: () => ({ region: 'eu' }),
  create: (): RegistrarPlugin => ({
    id: 'consumer',
    checkAvailability: async (domains) => domains.map((domain) => ({ domain, status: 'unknown' as const })),
    register: async () => ({ ok: false, reason: 'refused', message: 'no' }),
    renew: async () => ({ ok: false, reason: 'refused', message: 'no' }),
  }),
});

export const clients = [
  new ResellerClient({ baseUrl: 'https://reseller.example', email: 'shop@example.com', apiKey: 'key' }),
  new BundledClient({ baseUrl: 'https://reseller.example', email: 'shop@example.com', apiKey: 'key' }),
];
export const token: string = apiToken('shop@example.com', 'key', new Date());
`,
  );
  try {
    execFileSync(process.execPath, [tsc, '-p', consumer], { cwd: consumer, encoding: 'utf8' });
  } catch (error) {
    fail(`a strict consumer does not type-check:\n${error.stdout}`);
  }

  const sdkOnly = path.join(scratch, 'sdk-only');
  fs.mkdirSync(sdkOnly);
  fs.writeFileSync(path.join(sdkOnly, 'package.json'), JSON.stringify({ name: 'sdk-only', private: true }));
  npm(['install', '--prefer-offline', path.join(scratch, client.filename)], sdkOnly);
  const installed = fs.readdirSync(path.join(sdkOnly, 'node_modules')).filter((name) => !name.startsWith('.'));
  if (installed.join(',') !== 'domain-reseller-client')
    fail(`installing the SDK alone installed more than the SDK: ${installed.join(', ')}`);
  console.log('check-package: the package installs and type-checks; the SDK installs alone');
} finally {
  fs.rmSync(scratch, { recursive: true, force: true });
}
