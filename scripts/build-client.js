// The client SDK package (packages/client) is compiled from src/client, the one copy of its source
// that the server's tests and the platform's own `domain-reseller/client` export use too (docs/adr/0011).
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..');
const dist = path.join(root, 'packages', 'client', 'dist');
fs.rmSync(dist, { recursive: true, force: true });
execFileSync(
  process.execPath,
  [require.resolve('typescript/bin/tsc'), '-p', path.join(root, 'packages', 'client', 'tsconfig.json')],
  { stdio: 'inherit', cwd: root },
);
