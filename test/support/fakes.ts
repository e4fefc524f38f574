import type { PluginHost } from '../../src/core/registrar/plugin';
import { fixedClock } from '../../src/core/shared/clock';
import type { Logger } from '../../src/core/shared/logger';
import { MemoryPluginStore } from '../../src/testing/memory-plugin-store';

/** A logger that remembers what was logged, for asserting that faults are logged and stacks stay out of replies. */
export function recordingLogger(): Logger & { entries: Array<{ level: string; obj: object; msg?: string }> } {
  const entries: Array<{ level: string; obj: object; msg?: string }> = [];
  const at = (level: string) => (obj: object, msg?: string) => { entries.push({ level, obj, msg }); };
  const logger = { entries, info: at('info'), warn: at('warn'), error: at('error'), debug: at('debug'), child: () => logger };
  return logger;
}

/** The host a plugin gets, on an in-memory store and a fixed clock. */
export function testPluginHost(at = '2026-11-21T10:30:00Z'): PluginHost & { clock: ReturnType<typeof fixedClock>; store: MemoryPluginStore } {
  return { logger: recordingLogger(), clock: fixedClock(at), store: new MemoryPluginStore() };
}
