// Runs libxml2's xmllint (xmllint-wasm: compiled to WebAssembly) in one long-lived worker thread.
// xmllint-wasm's own validateXML starts a worker and compiles the WebAssembly for every document,
// which costs a tenth of a second or more per EPP frame; here the module is compiled once, each
// request gets a fresh instance, and a request may carry many frames (the schemas, the costly part,
// are then read once for all). Plain JavaScript: a worker thread is not run through ts-jest.
const { parentPort } = require('node:worker_threads');
const { readFileSync } = require('node:fs');
const path = require('node:path');

const packageDir = path.dirname(require.resolve('xmllint-wasm/package.json'));
// Requiring the Emscripten glue also installs the package's own message handler on this thread; it
// only answers messages tagged 'xmllint-wasm', which this worker never sends.
const runXmllint = require(path.join(packageDir, 'xmllint-node.js'));
const compiled = WebAssembly.compile(readFileSync(path.join(packageDir, 'xmllint.wasm')));

// Same memory as xmllint-wasm's defaults: 16 MiB, growing to 32 MiB.
const INITIAL_PAGES = 256;
const MAX_PAGES = 512;

async function validate({ inputFiles, args }) {
  const module = await compiled;
  let stderr = '';
  return new Promise((resolve) => {
    let exitCode;
    runXmllint({
      inputFiles,
      arguments: args,
      print() {},
      printErr(text) {
        stderr += `${text}\n`;
      },
      onExit(code) {
        exitCode = code;
        resolve({ exitCode, stderr });
      },
      onAbort(reason) {
        resolve({ exitCode: -1, stderr: `WASM abort: ${reason}` });
      },
      wasmMemory: new WebAssembly.Memory({ initial: INITIAL_PAGES, maximum: MAX_PAGES }),
      instantiateWasm(imports, done) {
        WebAssembly.instantiate(module, imports).then((instance) => done(instance, module));
        return {};
      },
    }).catch((error) => {
      if (exitCode === undefined) resolve({ exitCode: -1, stderr: String(error) });
    });
  });
}

parentPort.on('message', (message) => {
  if (message?.kind !== 'epp-validate') return;
  validate(message).then(
    (result) => parentPort.postMessage({ kind: 'epp-validated', id: message.id, ...result }),
    (error) => parentPort.postMessage({ kind: 'epp-validated', id: message.id, exitCode: -1, stderr: String(error) }),
  );
});
