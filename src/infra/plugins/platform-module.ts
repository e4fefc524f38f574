import Module from 'node:module';
import path from 'node:path';

/** The package name plugins import the contract from (docs/plugins.md), and what each of its paths means here. */
const PLATFORM_MODULES: Readonly<Record<string, string>> = {
  'domain-reseller': path.resolve(__dirname, '..', '..', 'index'),
  'domain-reseller/client': path.resolve(__dirname, '..', '..', 'client', 'index'),
};

const pluginRoots = new Set<string>();

type Resolve = (request: string, parent: { filename?: string | null } | undefined, ...rest: unknown[]) => string;

/**
 * Lets the code under a plugins directory `require('domain-reseller')` and get the platform that is
 * loading it: a plugin folder in a deployment has no node_modules holding the platform (and one
 * published with the platform as a peer dependency must not bring its own copy). Only requests
 * made by files inside `root` are answered this way; everything else resolves as usual.
 *
 * Node 20 has no public synchronous resolve hook for require (module.registerHooks came in 22.15),
 * so this wraps Module._resolveFilename, as tsx and module-alias do.
 */
export function providePlatformTo(root: string): void {
  if (pluginRoots.size === 0) {
    const internals = Module as unknown as { _resolveFilename: Resolve };
    const resolve = internals._resolveFilename;
    internals._resolveFilename = function (this: unknown, request, parent, ...rest) {
      const platform = PLATFORM_MODULES[request];
      const from = parent?.filename;
      if (platform !== undefined && from && [...pluginRoots].some((r) => from.startsWith(r + path.sep)))
        return resolve.call(this, platform, parent, ...rest);
      return resolve.call(this, request, parent, ...rest);
    };
  }
  pluginRoots.add(root);
}
