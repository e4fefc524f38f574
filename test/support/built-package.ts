import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const ROOT = path.resolve(__dirname, '..', '..');
const run = promisify(execFile);

/** What the build reads: a change to any of it means another build. */
const INPUTS = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build.js',
  'src',
  'plugins',
  'migrations',
];

function hashInputs(): string {
  // The checkout's own path too: the build links its node_modules, which another checkout's build must not reuse.
  const hash = createHash('sha256').update(ROOT).update('\0');
  const visit = (relative: string) => {
    const full = path.join(ROOT, relative);
    if (!existsSync(full)) return;
    if (statSync(full).isDirectory()) {
      for (const entry of readdirSync(full).sort()) if (entry !== 'node_modules') visit(path.join(relative, entry));
      return;
    }
    hash.update(relative).update('\0').update(readFileSync(full)).update('\0');
  };
  for (const input of INPUTS) visit(input);
  return hash.digest('hex').slice(0, 16);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * The package as `npm run build` leaves it, built once per state of the sources into a folder of
 * its own (test files run in parallel, and a build writing into the shared dist/ would race them):
 * DIR/dist, DIR/package.json, and DIR/node_modules pointing at this checkout's. Returns DIR, where
 * `node dist/src/main.js` and `npm run serve` run as in a deployment.
 */
export async function builtPackage(): Promise<string> {
  const dir = path.join(os.tmpdir(), `domain-reseller-build-${hashInputs()}`);
  const done = path.join(dir, '.built');
  const lock = `${dir}.lock`;
  for (;;) {
    if (existsSync(done)) return dir;
    try {
      mkdirSync(lock);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      // Another test file is building the same sources; a lock left by a killed run goes stale.
      const held = statSync(lock, { throwIfNoEntry: false });
      if (held && Date.now() - held.mtimeMs > 10 * 60_000) rmSync(lock, { recursive: true, force: true });
      await sleep(250);
    }
  }
  try {
    rmSync(dir, { recursive: true, force: true });
    mkdirSync(dir, { recursive: true });
    await run(process.execPath, [path.join(ROOT, 'scripts/build.js'), '--out-dir', path.join(dir, 'dist')], {
      cwd: ROOT,
      maxBuffer: 16 * 1024 * 1024,
    });
    writeFileSync(path.join(dir, 'package.json'), readFileSync(path.join(ROOT, 'package.json')));
    symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'));
    writeFileSync(done, new Date().toISOString());
    return dir;
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}
