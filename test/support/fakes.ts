import type { AvailabilityResult, CallContext, RegistrarPlugin } from '../../src/core/registrar/plugin';
import type { RegistrarDirectory } from '../../src/core/registrar/registrar-directory';
import type { Logger } from '../../src/core/shared/logger';

/** A logger that keeps what it was told, for tests that check a failure was reported. */
export function recordingLogger(): Logger & { readonly warnings: Array<{ obj: object; msg?: string }> } {
  const warnings: Array<{ obj: object; msg?: string }> = [];
  const logger = {
    warnings,
    info: () => undefined,
    debug: () => undefined,
    error: () => undefined,
    warn: (obj: object, msg?: string) => { warnings.push({ obj, msg }); },
    child: () => logger,
  };
  return logger;
}

/** Installed plugins by id; `get` of anything else throws, like the real registry. */
export function fakeDirectory(...plugins: RegistrarPlugin[]): RegistrarDirectory {
  const byId = new Map(plugins.map((p) => [p.id, p]));
  return {
    has: (id) => byId.has(id),
    ids: () => [...byId.keys()],
    get: (id) => {
      const plugin = byId.get(id);
      if (!plugin) throw new Error(`registrar plugin "${id}" is not installed`);
      return plugin;
    },
  };
}

/** A registrar whose availability answer is a function of the batch; records every batch. */
export function fakeRegistrar(
  id: string,
  check: (domains: readonly string[], ctx: CallContext) => Promise<AvailabilityResult[]> | AvailabilityResult[] = (domains) => domains.map((domain) => ({ domain, status: 'available' })),
  extra: Partial<RegistrarPlugin> = {},
): RegistrarPlugin & { readonly batches: string[][] } {
  const batches: string[][] = [];
  return {
    id,
    batches,
    checkAvailability: (domains, ctx) => {
      batches.push([...domains]);
      return Promise.resolve().then(() => check(domains, ctx));
    },
    register: async () => ({ ok: false, reason: 'refused', message: 'fake' }),
    renew: async () => ({ ok: false, reason: 'refused', message: 'fake' }),
    ...extra,
  };
}

export function deferred<T = void>(): { promise: Promise<T>; resolve: (value: T) => void } {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => { resolve = r; });
  return { promise, resolve };
}
