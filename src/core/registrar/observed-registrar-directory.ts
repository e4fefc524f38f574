import { CAPABILITY_METHODS, CAPABILITY_NAMES, type CallContext, type RegistrarPlugin } from './plugin';
import type { RegistrarDirectory } from './registrar-directory';

/**
 * How one registrar call ended: `ok`; a definite "no" the plugin returned (`refused`,
 * `unavailable`, `pending`); cut off at the deadline (`timeout`); or a fault (`error`).
 */
export type RegistrarCallOutcome = 'ok' | 'refused' | 'unavailable' | 'pending' | 'timeout' | 'error';

export interface RegistrarCall {
  readonly plugin: string;
  /** The capability (`domainSync`), or the required method (`register`, `checkAvailability`). */
  readonly capability: string;
  /** The method within the capability (`sync`); the same as `capability` for a required method. */
  readonly operation: string;
  readonly outcome: RegistrarCallOutcome;
  readonly seconds: number;
}

/** Told about every registrar call the platform makes (metrics implement it; the core never imports them). */
export interface RegistrarCallObserver {
  registrarCall(call: RegistrarCall): void;
}

export const NO_REGISTRAR_CALL_OBSERVER: RegistrarCallObserver = { registrarCall: () => undefined };

const REQUIRED = ['checkAvailability', 'register', 'renew'] as const;
const DEFINITE = new Set(['refused', 'unavailable', 'pending']);

type Method = (...args: unknown[]) => Promise<unknown>;

/**
 * The directory with every plugin call observed: one decorator in front of the plugins, so the
 * gateway, search and orders are measured alike whichever path they take. A call cut off at its
 * deadline is recorded when its signal aborts, not when (or whether) the plugin gives up.
 */
export function observeRegistrarCalls(
  directory: RegistrarDirectory,
  observer: RegistrarCallObserver,
): RegistrarDirectory {
  const wrapped = new Map<RegistrarPlugin, RegistrarPlugin>();
  return {
    has: (id) => directory.has(id),
    ids: () => directory.ids(),
    get(id) {
      const plugin = directory.get(id);
      let observed = wrapped.get(plugin);
      if (!observed) {
        observed = observePlugin(plugin, observer);
        wrapped.set(plugin, observed);
      }
      return observed;
    },
  };
}

function observePlugin(plugin: RegistrarPlugin, observer: RegistrarCallObserver): RegistrarPlugin {
  const observed: Record<string, unknown> = { id: plugin.id };
  for (const name of REQUIRED) observed[name] = observeMethod(plugin, name, plugin.id, name, name, observer);
  for (const capability of CAPABILITY_NAMES) {
    const group = plugin[capability] as Record<string, unknown> | undefined;
    if (group === undefined) continue;
    const observedGroup: Record<string, unknown> = {};
    for (const method of CAPABILITY_METHODS[capability] as readonly string[]) {
      observedGroup[method] = observeMethod(group, method, plugin.id, capability, method, observer);
    }
    observed[capability] = observedGroup;
  }
  if (plugin.close) observed.close = () => plugin.close!();
  return observed as unknown as RegistrarPlugin;
}

function observeMethod(
  target: Record<string, unknown> | RegistrarPlugin,
  method: string,
  pluginId: string,
  capability: string,
  operation: string,
  observer: RegistrarCallObserver,
): Method {
  const original = (target as Record<string, unknown>)[method] as Method;
  return (...args: unknown[]) => {
    const started = performance.now();
    const signal = (args[args.length - 1] as Partial<CallContext> | undefined)?.signal;
    let recorded = false;
    const record = (outcome: RegistrarCallOutcome) => {
      if (recorded) return;
      recorded = true;
      signal?.removeEventListener('abort', onAbort);
      observer.registrarCall({
        plugin: pluginId,
        capability,
        operation,
        outcome,
        seconds: (performance.now() - started) / 1000,
      });
    };
    const onAbort = () => record('timeout');
    signal?.addEventListener('abort', onAbort, { once: true });
    let result: Promise<unknown>;
    try {
      result = Promise.resolve(original.apply(target, args));
    } catch (error) {
      record('error');
      throw error;
    }
    return result.then(
      (answer) => {
        const failed = typeof answer === 'object' && answer !== null && (answer as { ok?: unknown }).ok === false;
        const reason = failed ? String((answer as { reason?: unknown }).reason) : '';
        record(failed ? (DEFINITE.has(reason) ? (reason as RegistrarCallOutcome) : 'refused') : 'ok');
        return answer;
      },
      (error: unknown) => {
        record(signal?.aborted ? 'timeout' : 'error');
        throw error;
      },
    );
  };
}
