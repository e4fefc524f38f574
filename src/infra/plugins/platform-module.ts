import Module from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

/** The package name plugins import the contract from (docs/plugins.md), and what each of its paths means here. */
const PLATFORM_MODULES: ReadonlyMap<string, string> = new Map([
  ['domain-reseller', path.resolve(__dirname, '..', '..', 'index')],
  ['domain-reseller/client', path.resolve(__dirname, '..', '..', 'client', 'index')],
]);

/**
 * The plugin roots, kept on the global object under a key naming this very file: a test runner
 * that evaluates the file again per test file (jest does) finds the resolution already in place
 * and adds its roots to it, instead of stacking one more hook or wrapper per evaluation. A second
 * copy of the platform (another path) keeps its own.
 */
const ROOTS_KEY = Symbol.for(`domain-reseller/plugin-roots ${__filename}`);
const shared = globalThis as Record<symbol, Set<string> | undefined>;
shared[ROOTS_KEY] ??= new Set<string>();
const pluginRoots: Set<string> = shared[ROOTS_KEY];

/** Asked on every module resolution in the process: no copy of the set per call. */
function isInsidePluginRoot(file: string): boolean {
  for (const root of pluginRoots) if (file.startsWith(root + path.sep)) return true;
  return false;
}

type Resolve = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;

/**
 * The part of `module.registerHooks` (Node 22.15+, 23.5+) used here; @types/node 20 does not declare it.
 * `parentURL` is the importing module's URL (a file: URL for files; absent for the entry point).
 */
interface ResolveHookContext {
  parentURL?: string;
  conditions?: readonly string[];
}
interface ResolveHookResult {
  url: string;
  format?: string | null;
  shortCircuit?: boolean;
}
type RegisterHooks = (hooks: {
  resolve?: (
    specifier: string,
    context: ResolveHookContext,
    nextResolve: (specifier: string, context?: Partial<ResolveHookContext>) => ResolveHookResult,
  ) => ResolveHookResult;
}) => unknown;

/**
 * Lets the code under a plugins directory `require('domain-reseller')` and get the platform that is
 * loading it: a plugin folder in a deployment has no node_modules holding the platform (and one
 * published with the platform as a peer dependency must not bring its own copy). Only requests
 * made by files inside `root` are answered this way; everything else resolves as usual.
 *
 * Where Node has the public synchronous resolve hook, `module.registerHooks` (Node 22.15+ and 23.5+,
 * so every Node 24), it is used, and Node's internals are left alone; the hook answers the platform
 * file's URL, which serves `require` and (a hook sees both) an `import` from an ES module under a
 * plugin root. Where it is missing (Node 20, 22 up to 22.14, 23 up to 23.4), this falls back to
 * wrapping the internal Module._resolveFilename, as tsx and module-alias do, which answers `require` only.
 */
export function providePlatformTo(root: string): void {
  if (pluginRoots.size === 0) {
    const registerHooks = (Module as unknown as { registerHooks?: RegisterHooks }).registerHooks;
    if (typeof registerHooks === 'function') answerWithHooks(registerHooks);
    else answerByWrappingResolveFilename();
  }
  pluginRoots.add(root);
}

function answerWithHooks(registerHooks: RegisterHooks): void {
  const urls = new Map<string, string>();
  const platformUrl = (specifier: string, file: string) => {
    let url = urls.get(specifier);
    if (url === undefined) {
      url = pathToFileURL(require.resolve(file)).href;
      urls.set(specifier, url);
    }
    return url;
  };
  registerHooks({
    resolve(specifier, context, nextResolve) {
      const platform = PLATFORM_MODULES.get(specifier);
      const parent = context.parentURL;
      if (platform !== undefined && parent?.startsWith('file:') && isInsidePluginRoot(fileURLToPath(parent)))
        return { url: platformUrl(specifier, platform), shortCircuit: true };
      return nextResolve(specifier, context);
    },
  });
}

function answerByWrappingResolveFilename(): void {
  const internals = Module as unknown as { _resolveFilename: Resolve };
  const resolve = internals._resolveFilename;
  internals._resolveFilename = function (this: unknown, request, parent, ...rest) {
    const platform = PLATFORM_MODULES.get(request);
    const from = parent?.filename;
    if (platform !== undefined && from && isInsidePluginRoot(from))
      return resolve.call(this, platform, parent, ...rest);
    return resolve.call(this, request, parent, ...rest);
  };
}
