import { guardRegistrars, type GuardedRegistrars, type GuardOptions } from '../../src/core/registrar/guarded-registrar';
import {
  CAPABILITY_NAMES,
  type AvailabilityResult,
  type CallContext,
  type RegistrarPlugin,
} from '../../src/core/registrar/plugin';
import type { RegistrarDirectory } from '../../src/core/registrar/registrar-directory';
import type { Logger } from '../../src/core/common/logger';
import type { PluginHost } from '../../src/core/registrar/plugin';
import { fixedClock } from '../../src/core/common/clock';
import { MemoryPluginStore } from '../../src/testing/memory-plugin-store';
/**
 * Installed plugins by id, each offering the capabilities its object has (read at every lookup,
 * so a test may change a plugin after making the directory); `installed` of anything else throws,
 * like the real registry.
 */
export function fakeDirectory(...plugins: RegistrarPlugin[]): RegistrarDirectory {
  const byId = new Map(plugins.map((p) => [p.id, p]));
  return {
    has: (id) => byId.has(id),
    ids: () => [...byId.keys()],
    installed: (id) => {
      const plugin = byId.get(id);
      if (!plugin) throw new Error(`registrar plugin "${id}" is not installed`);
      return { id, plugin, capabilities: CAPABILITY_NAMES.filter((c) => plugin[c] !== undefined) };
    },
  };
}

/** The plugins behind their guarded registrars, as the platform calls them. */
export function guardedDirectory(plugins: RegistrarPlugin[], options: Partial<GuardOptions> = {}): GuardedRegistrars {
  return guardRegistrars(fakeDirectory(...plugins), { timeoutMs: 1_000, logger: recordingLogger(), ...options });
}

/** A registrar whose availability answer is a function of the batch; records every batch. */
export function availabilityRegistrar(
  id: string,
  check: (domains: readonly string[], ctx: CallContext) => Promise<AvailabilityResult[]> | AvailabilityResult[] = (
    domains,
  ) => domains.map((domain) => ({ domain, status: 'available' })),
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
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

/** A logger that remembers what was logged, for asserting that faults are logged and stacks stay out of replies. */
export function recordingLogger(): Logger & {
  readonly entries: Array<{ level: string; obj: object; msg?: string }>;
  /** The warn-level entries. */
  readonly warnings: Array<{ obj: object; msg?: string }>;
} {
  const entries: Array<{ level: string; obj: object; msg?: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => {
    entries.push({ level, obj, msg });
  };
  const logger = {
    entries,
    get warnings() {
      return entries.filter((e) => e.level === 'warn').map(({ obj, msg }) => ({ obj, msg }));
    },
    info: at('info'),
    warn: at('warn'),
    error: at('error'),
    debug: at('debug'),
    child: () => logger,
  };
  return logger;
}

/** The host a plugin gets, on an in-memory store and a fixed clock. */
export function testPluginHost(
  at = '2026-11-21T10:30:00Z',
): PluginHost & { clock: ReturnType<typeof fixedClock>; store: MemoryPluginStore } {
  return { logger: recordingLogger(), clock: fixedClock(at), store: new MemoryPluginStore() };
}
