import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';

/**
 * The RFC schemas: EPP_SCHEMAS_DIR, else the copy in test/fixtures/epp-schemas (so a clone tests
 * without anything beside it).
 */
export function eppSchemaDir(): string {
  const dir = process.env.EPP_SCHEMAS_DIR ?? path.resolve(__dirname, '..', '..', 'fixtures', 'epp-schemas');
  if (!existsSync(path.join(dir, 'epp-all.xsd')))
    throw new Error(`the EPP schemas are not at ${dir}; set EPP_SCHEMAS_DIR to the folder holding epp-all.xsd`);
  return dir;
}

interface InputFile {
  readonly fileName: string;
  readonly contents: string;
}

const schemaFiles = new Map<string, readonly InputFile[]>();

/** Every schema of the folder, for the validator's in-memory file system (it does no file I/O). */
function schemasOf(dir: string): readonly InputFile[] {
  let files = schemaFiles.get(dir);
  if (!files) {
    files = readdirSync(dir)
      .filter((f) => f.endsWith('.xsd'))
      .map((fileName) => ({ fileName, contents: readFileSync(path.join(dir, fileName), 'utf8') }));
    schemaFiles.set(dir, files);
  }
  return files;
}

interface Queued {
  readonly xml: string;
  readonly dir: string;
  readonly resolve: (problem: string | undefined) => void;
}

let worker: Worker | undefined;
let nextRun = 1;
let inFlight: { id: number; batch: Queued[] } | undefined;
const queue: Queued[] = [];

/** One worker for the whole test file, started on first use; it keeps the process alive only while it has work. */
function validator(): Worker {
  if (!worker) {
    const started = new Worker(path.join(__dirname, 'xml-schema-worker.js'));
    started.on('message', (m: { kind?: string; id: number; exitCode: number; stderr: string }) => {
      if (m?.kind !== 'epp-validated' || m.id !== inFlight?.id) return;
      const { batch } = inFlight;
      inFlight = undefined;
      settle(batch, m.exitCode, m.stderr);
      flush();
    });
    started.on('error', (error) => {
      const batch = inFlight?.batch ?? [];
      inFlight = undefined;
      worker = undefined;
      settle(batch, -1, `the validator failed: ${error.message}`);
      flush();
    });
    worker = started;
  }
  return worker;
}

/** Sends everything waiting (for one schema folder) as one run; xmllint reads the schemas once per run. */
function flush(): void {
  if (inFlight) return;
  if (queue.length === 0) {
    worker?.unref();
    return;
  }
  const dir = queue[0]!.dir;
  const batch = queue.filter((q) => q.dir === dir);
  queue.splice(0, queue.length, ...queue.filter((q) => q.dir !== dir));
  const frames = batch.map((q, i) => ({ fileName: `frame-${i + 1}.xml`, contents: q.xml }));
  inFlight = { id: nextRun++, batch };
  const running = validator();
  running.ref();
  running.postMessage({
    kind: 'epp-validate',
    id: inFlight.id,
    inputFiles: [...schemasOf(dir), ...frames],
    args: ['--noout', '--nonet', '--schema', 'epp-all.xsd', ...frames.map((f) => f.fileName)],
  });
}

/**
 * xmllint names each file in its output: `frame-N.xml:LINE: …` for each complaint, then
 * `frame-N.xml validates` or `… fails to validate`. A file it never names (the schemas did not
 * compile, say) gets the whole output.
 */
function settle(batch: readonly Queued[], exitCode: number, stderr: string): void {
  const lines = stderr.split('\n').filter((line) => line.trim() !== '');
  batch.forEach((q, i) => {
    const file = `frame-${i + 1}.xml`;
    const problems = lines
      .filter((line) => line.startsWith(`${file}:`))
      .map((line) => line.replace(/^frame-\d+\.xml:(\d+):/, 'line $1:'));
    if (problems.length > 0 || lines.includes(`${file} fails to validate`))
      q.resolve(problems.join('\n') || 'the frame is not valid EPP');
    else if (lines.includes(`${file} validates`) || exitCode === 0) q.resolve(undefined);
    else q.resolve(stderr.trim() || `the validator exited with ${exitCode}`);
  });
}

/**
 * Validates one EPP instance against the RFC schemas with libxml2's xmllint compiled to
 * WebAssembly (the `xmllint-wasm` package: the same validator as Debian's xmllint, so nothing
 * needs installing beside Node). Resolves to undefined when valid, else the validator's complaint.
 * Frames asked for while a run is going are validated together in the next run.
 */
export function validateEpp(xml: string, dir = eppSchemaDir()): Promise<string | undefined> {
  return new Promise((resolve) => {
    queue.push({ xml, dir, resolve });
    flush();
  });
}
