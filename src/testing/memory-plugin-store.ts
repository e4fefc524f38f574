import { PLUGIN_STORE_MAX_KEY_LENGTH, type PluginStore } from '../core/registrar/plugin';

/**
 * An in-memory `PluginStore` for plugin unit tests and the conformance kit. Values go through a
 * JSON round trip, as in the platform database, so a plugin that stores something JSON cannot
 * hold (a Date, a Map) finds out here rather than in production.
 */
export class MemoryPluginStore implements PluginStore {
  private readonly values = new Map<string, string>();

  async get<T = unknown>(key: string): Promise<T | undefined> {
    const text = this.values.get(checkKey(key));
    return text === undefined ? undefined : (JSON.parse(text) as T);
  }

  async set(key: string, value: unknown): Promise<void> {
    this.values.set(checkKey(key), serialise(value));
  }

  async setIfAbsent(key: string, value: unknown): Promise<boolean> {
    if (this.values.has(checkKey(key))) return false;
    this.values.set(key, serialise(value));
    return true;
  }

  async delete(key: string): Promise<void> {
    this.values.delete(checkKey(key));
  }

  async keys(prefix = ''): Promise<string[]> {
    return [...this.values.keys()].filter((k) => k.startsWith(prefix)).sort();
  }
}

function checkKey(key: string): string {
  if (typeof key !== 'string' || key.length === 0 || key.length > PLUGIN_STORE_MAX_KEY_LENGTH) {
    throw new Error(`plugin store keys must be 1 to ${PLUGIN_STORE_MAX_KEY_LENGTH} characters`);
  }
  return key;
}

function serialise(value: unknown): string {
  const text = JSON.stringify(value);
  if (text === undefined) throw new Error('plugin store values must be JSON-serialisable');
  return text;
}
