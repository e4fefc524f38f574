import type { RegistrarPlugin } from './plugin';

/** The installed registrar plugins; the catalogue checks `--registrar` names against it. */
export interface RegistrarDirectory {
  has(id: string): boolean;
  ids(): string[];
  /** Throws when the plugin is not installed (a catalogue naming a removed plugin). */
  get(id: string): RegistrarPlugin;
}
