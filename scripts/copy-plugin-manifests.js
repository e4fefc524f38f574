// tsc compiles plugins/*/index.ts into dist/plugins; their package.json manifests must sit beside them.
const fs = require('node:fs');
const path = require('node:path');

const source = path.join(__dirname, '..', 'plugins');
const target = path.join(__dirname, '..', 'dist', 'plugins');
for (const entry of fs.readdirSync(source)) {
  const manifest = path.join(source, entry, 'package.json');
  if (!fs.existsSync(manifest)) continue;
  fs.mkdirSync(path.join(target, entry), { recursive: true });
  fs.copyFileSync(manifest, path.join(target, entry, 'package.json'));
}
