/** Which registrar plugins are installed; the catalogue checks `--registrar` names against it. */
export interface RegistrarDirectory {
  has(id: string): boolean;
  ids(): string[];
}
