import type { CapabilityName, RegistrarPlugin } from './plugin';

/** One installed registrar plugin, as the loader hands it over. */
export interface InstalledRegistrar {
  readonly id: string;
  /** The capabilities in use: those its manifest declares, minus those the operator switched off. */
  readonly capabilities: readonly CapabilityName[];
  /** The created plugin object; undefined while the plugin is installed but not configured. */
  readonly plugin: RegistrarPlugin | undefined;
  /** Why the plugin is not configured, in its own words (every call to it fails with this). */
  readonly notConfigured?: string;
}

/** The installed registrar plugins (the plugin loader's registry implements it). */
export interface RegistrarDirectory {
  has(id: string): boolean;
  ids(): string[];
  /** Throws when the plugin is not installed (a catalogue naming a removed plugin). */
  installed(id: string): InstalledRegistrar;
  /** Why the plugin with this id failed to load (it is disabled); undefined when it did not. */
  failure?(id: string): string | undefined;
}
