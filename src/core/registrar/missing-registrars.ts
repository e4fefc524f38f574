/**
 * TLDs whose registrar plugin is not installed (a plugin removed, or a folder renamed, after the
 * TLDs were set): their orders would fail one by one, so start-up and /readyz say so.
 */
export function missingRegistrars(
  tlds: ReadonlyArray<{ readonly tld: string; readonly registrar: string }>,
  registrars: { has(id: string): boolean },
): string | undefined {
  const missing = new Map<string, string[]>();
  for (const { tld, registrar } of tlds)
    if (!registrars.has(registrar)) missing.set(registrar, [...(missing.get(registrar) ?? []), tld]);
  if (missing.size === 0) return undefined;
  return [...missing.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([id, names]) => `plugin "${id}" is not installed, but TLDs use it: ${[...new Set(names)].sort().join(', ')}`)
    .join('; ');
}
