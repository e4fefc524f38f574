// The package's entry: the compiled SDK in dist/. A copy installed from the source folder
// (`npm install ./packages/client`) has no dist/, since only `npm pack` builds it: say so, instead
// of Node's bare "Cannot find module".
const { existsSync } = require('node:fs');
const path = require('node:path');

if (!existsSync(path.join(__dirname, 'dist', 'index.js')))
  throw new Error(
    `domain-reseller-client at ${__dirname} has no dist/: it was installed from its source folder, which holds ` +
      'no compiled SDK. Install the packed tarball instead: `npm pack` in packages/client of a clone (after ' +
      '`npm ci` at its root) makes domain-reseller-client-<version>.tgz; then `npm install /path/to/that.tgz` ' +
      '(docs/embedding.md#installing). Or run `npm run build -w domain-reseller-client` in the clone first.',
  );
module.exports = require('./dist/index.js');
