// The production build: dist/ (or --out-dir DIR) holds the compiled server, CLI, migrations and bundled plugins.
// Cleaned first, so that a file whose source was removed is never packed or run.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const flag = process.argv.indexOf('--out-dir');
const outDir = path.resolve(root, flag >= 0 ? process.argv[flag + 1] : 'dist');

fs.rmSync(outDir, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'tsconfig.build.json'), '--outDir', outDir],
  { stdio: 'inherit', cwd: root },
);
// tsc compiles plugins/*/index.ts into DIR/plugins; their package.json manifests must sit beside them.
for (const entry of fs.readdirSync(path.join(root, 'plugins'))) {
  const manifest = path.join(root, 'plugins', entry, 'package.json');
  if (!fs.existsSync(manifest)) continue;
  fs.mkdirSync(path.join(outDir, 'plugins', entry), { recursive: true });
  fs.copyFileSync(manifest, path.join(outDir, 'plugins', entry, 'package.json'));
}
// The pages' templates and static files are read at run time beside the compiled src/web.
for (const folder of ['templates', 'static']) {
  fs.cpSync(path.join(root, 'src', 'web', folder), path.join(outDir, 'src', 'web', folder), { recursive: true });
}
// The bins run under plain node.
fs.chmodSync(path.join(outDir, 'src', 'main.js'), 0o755);
fs.chmodSync(path.join(outDir, 'src', 'cli', 'main.js'), 0o755);
